package codever

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"io/fs"
	"maps"
	"path"
	"slices"
	"strconv"
	"strings"
)

// codeScheme names the rule of reachedCode's hash; it is part of the hash,
// so that a change of the rule makes every version new.
const codeScheme = "psub reached code v1"

// implicitMethods are the methods that code outside the module calls on
// a module value without the module's code naming them (fmt, sort,
// container/heap, encoding/json, io, errors, image, gonum's mat): a reached
// type's method of one of these names is reached.
var implicitMethods = []string{
	"String", "GoString", "Format", "Error", "Unwrap", "Is", "As",
	"MarshalJSON", "UnmarshalJSON", "MarshalText", "UnmarshalText", "MarshalBinary", "UnmarshalBinary",
	"Len", "Less", "Swap", "Push", "Pop",
	"Read", "Write", "Close", "Seek", "ReadAt", "WriteTo", "ReadFrom", "ReadByte", "WriteByte",
	"ColorModel", "Bounds", "At", "RGBA", "Dims", "T",
}

// source is a tree of the module's files, read by slash paths from its
// root: the working tree (os.DirFS) or a commit (gitTree).
type source interface {
	fs.ReadFileFS
	fs.ReadDirFS
	fs.StatFS
}

// modSource is a parsed module: go.mod's facts and the packages parsed so
// far, by directory.
type modSource struct {
	src    source
	module string            // module path
	goLine string            // go.mod's go directive
	deps   map[string]string // external module path → version (and replacement)
	pkgs   map[string]*pkg   // by slash directory from the root ("" is the root)
	fset   *token.FileSet
}

// pkg is one parsed package: its non-test files' top-level declarations
// split into units (a function, a method, a type, a variable spec, a
// constant spec or iota group), indexed by the names they declare.
type pkg struct {
	dir, name string
	asm       []string // its assembly files (.s), which bodiless functions are written in
	units     []*unit
	scope     map[string][]*unit // package-level names (not methods)
	methods   map[string][]*unit // receiver type → its methods
	inits     []*unit            // init functions and `var _ = …` specs
}

// unit is a top-level declaration, the grain of reachability and hashing.
type unit struct {
	pkg   *pkg
	key   string // "T.M", "F", "T", "a,b", "const(A,B)"
	recv  string // receiver type of a method
	name  string // method name
	node  ast.Node
	file  *fileInfo
	start token.Pos // first token hashed (after the doc comment)
	end   token.Pos
	kw    string   // the declaration's keyword when node is a spec
	embed []string // //go:embed patterns of a variable
}

type fileInfo struct {
	src     []byte
	base    int               // the file's base in the FileSet
	imports map[string]string // local name → import path (not "_" or ".")
	dotDirs []string          // module packages imported with "."
}

func newModSource(src source) (*modSource, error) {
	b, err := src.ReadFile("go.mod")
	if err != nil {
		return nil, fmt.Errorf("code version: %w", err)
	}
	m := &modSource{src: src, deps: map[string]string{}, pkgs: map[string]*pkg{}, fset: token.NewFileSet()}
	inBlock := ""
	for _, line := range strings.Split(string(b), "\n") {
		if i := strings.Index(line, "//"); i >= 0 {
			line = line[:i]
		}
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		if f[0] == ")" {
			inBlock = ""
			continue
		}
		if len(f) == 2 && f[1] == "(" {
			inBlock = f[0]
			continue
		}
		verb := inBlock
		if verb == "" {
			verb, f = f[0], f[1:]
		}
		switch {
		case verb == "module" && len(f) == 1:
			m.module = strings.Trim(f[0], `"`)
		case verb == "go" && len(f) == 1:
			m.goLine = f[0]
		case verb == "require" && len(f) == 2:
			m.deps[strings.Trim(f[0], `"`)] = f[1]
		case verb == "replace" && len(f) >= 3:
			p := strings.Trim(f[0], `"`)
			m.deps[p] += " => " + strings.Join(f[2:], " ")
		}
	}
	if m.module == "" {
		return nil, fmt.Errorf("code version: go.mod names no module")
	}
	return m, nil
}

// dirOf returns the module directory of import path p, ok false for a
// package outside the module.
func (m *modSource) dirOf(p string) (string, bool) {
	if p == m.module {
		return "", true
	}
	if rest, ok := strings.CutPrefix(p, m.module+"/"); ok {
		return rest, true
	}
	return "", false
}

// dep returns the external module of import path p with its version, ""
// for the standard library.
func (m *modSource) dep(p string) string {
	best := ""
	for mod := range m.deps {
		if (p == mod || strings.HasPrefix(p, mod+"/")) && len(mod) > len(best) {
			best = mod
		}
	}
	if best == "" {
		return ""
	}
	return best + "@" + m.deps[best]
}

// load parses the package in directory dir (cached), nil when it holds no
// non-test Go file.
func (m *modSource) load(dir string) (*pkg, error) {
	if p, ok := m.pkgs[dir]; ok {
		return p, nil
	}
	m.pkgs[dir] = nil
	ents, err := m.src.ReadDir(cmp.Or(dir, "."))
	if errors.Is(err, fs.ErrNotExist) {
		// An external test package's path ("notebooks_test"): no
		// directory, so no declaration of the module.
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("code version: package %s: %w", dir, err)
	}
	p := &pkg{dir: dir, scope: map[string][]*unit{}, methods: map[string][]*unit{}}
	for _, e := range ents {
		name := e.Name()
		if !e.IsDir() && strings.HasSuffix(name, ".s") && !strings.HasPrefix(name, ".") {
			p.asm = append(p.asm, path.Join(dir, name))
			continue
		}
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") ||
			strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") {
			continue
		}
		file := path.Join(dir, name)
		b, err := m.src.ReadFile(file)
		if err != nil {
			return nil, fmt.Errorf("code version: %w", err)
		}
		// Build constraints are not read: every file counts (a
		// platform's variant of a function is hashed with the others).
		f, err := parser.ParseFile(m.fset, file, b, parser.ParseComments)
		if err != nil {
			return nil, fmt.Errorf("code version: %w", err)
		}
		if p.name == "" {
			p.name = f.Name.Name
		}
		fi := &fileInfo{src: b, base: m.fset.File(f.Pos()).Base(), imports: map[string]string{}}
		for _, im := range f.Imports {
			ip, _ := strconv.Unquote(im.Path.Value)
			local := ""
			switch {
			case im.Name != nil && im.Name.Name == "_":
				continue
			case im.Name != nil && im.Name.Name == ".":
				if d, ok := m.dirOf(ip); ok {
					if _, err := m.load(d); err != nil {
						return nil, err
					}
					fi.dotDirs = append(fi.dotDirs, d)
				}
				continue
			case im.Name != nil:
				local = im.Name.Name
			default:
				if d, ok := m.dirOf(ip); ok {
					q, err := m.load(d)
					if err != nil {
						return nil, err
					}
					if q == nil {
						return nil, fmt.Errorf("code version: %s imports %s, which has no Go files", file, ip)
					}
					local = q.name
				} else {
					local = guessName(ip)
				}
			}
			fi.imports[local] = ip
		}
		p.addDecls(f, fi)
	}
	if p.name == "" {
		return nil, nil
	}
	m.pkgs[dir] = p
	return p, nil
}

// guessName is the name an external package is imported under by default:
// its path's last element without a major version or a "go-" prefix.
func guessName(ip string) string {
	el := strings.Split(ip, "/")
	name := el[len(el)-1]
	if len(el) > 1 && len(name) > 1 && name[0] == 'v' && strings.Trim(name[1:], "0123456789") == "" {
		name = el[len(el)-2]
	}
	name = strings.TrimPrefix(name, "go-")
	if i := strings.IndexAny(name, ".-"); i >= 0 {
		name = name[:i]
	}
	return name
}

func (p *pkg) addDecls(f *ast.File, fi *fileInfo) {
	// add registers u, under names in the package's scope.
	add := func(u *unit, names ...string) {
		u.pkg, u.file = p, fi
		p.units = append(p.units, u)
		for _, n := range names {
			if n != "_" {
				p.scope[n] = append(p.scope[n], u)
			}
		}
	}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			u := &unit{node: d, start: d.Pos(), end: d.End(), key: d.Name.Name}
			if d.Recv != nil && len(d.Recv.List) == 1 {
				u.recv, u.name = recvName(d.Recv.List[0].Type), d.Name.Name
				u.key = u.recv + "." + u.name
				add(u)
				p.methods[u.recv] = append(p.methods[u.recv], u)
				continue
			}
			if d.Name.Name == "init" {
				add(u)
				p.inits = append(p.inits, u)
				continue
			}
			add(u, d.Name.Name)
		case *ast.GenDecl:
			if d.Tok == token.IMPORT {
				continue
			}
			if d.Tok == token.CONST && d.Lparen.IsValid() && !independentConsts(d) {
				var names []string
				for _, s := range d.Specs {
					for _, n := range s.(*ast.ValueSpec).Names {
						names = append(names, n.Name)
					}
				}
				add(&unit{node: d, start: d.Pos(), end: d.End(), key: "const(" + strings.Join(names, ",") + ")"}, names...)
				continue
			}
			for _, s := range d.Specs {
				u := &unit{node: s, start: s.Pos(), end: s.End(), kw: d.Tok.String()}
				switch s := s.(type) {
				case *ast.TypeSpec:
					u.key = s.Name.Name
					add(u, s.Name.Name)
				case *ast.ValueSpec:
					var names []string
					blank := true
					for _, n := range s.Names {
						names = append(names, n.Name)
						blank = blank && n.Name == "_"
					}
					u.key = d.Tok.String() + " " + strings.Join(names, ",")
					u.embed = embedPatterns(d, s)
					if blank {
						add(u)
						p.inits = append(p.inits, u)
						continue
					}
					add(u, names...)
				}
			}
		}
	}
}

// independentConsts reports whether every constant of a group has its own
// value and none uses iota: each spec then means the same alone, and is a
// unit of its own.
func independentConsts(d *ast.GenDecl) bool {
	for _, s := range d.Specs {
		vs := s.(*ast.ValueSpec)
		if len(vs.Values) == 0 {
			return false
		}
		iota := false
		ast.Inspect(vs, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok && id.Name == "iota" {
				iota = true
			}
			return !iota
		})
		if iota {
			return false
		}
	}
	return true
}

// embedPatterns returns the //go:embed patterns of a variable spec.
func embedPatterns(d *ast.GenDecl, s *ast.ValueSpec) []string {
	var out []string
	for _, cg := range []*ast.CommentGroup{d.Doc, s.Doc} {
		if cg == nil {
			continue
		}
		for _, c := range cg.List {
			if rest, ok := strings.CutPrefix(c.Text, "//go:embed "); ok {
				out = append(out, strings.Fields(rest)...)
			}
		}
	}
	return out
}

// recvName is the type name of a method's receiver (T of *T, T[K]).
func recvName(e ast.Expr) string {
	for {
		switch x := e.(type) {
		case *ast.StarExpr:
			e = x.X
		case *ast.ParenExpr:
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.IndexListExpr:
			e = x.X
		case *ast.Ident:
			return x.Name
		default:
			return ""
		}
	}
}

// refs is what a unit refers to: package-level names of its own package,
// declarations of other module packages (dir, name), selected names (of
// fields and methods, through any value) and external modules.
type refs struct {
	local    []string
	imported [][2]string
	methods  []*unit // methods selected on a variable of known type
	selected []string
	external []string
}

func (m *modSource) refsOf(u *unit) refs {
	var r refs
	var walk func(n ast.Node) bool
	walk = func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.SelectorExpr:
			if t, ok := m.exprType(u, n.X, 0); ok {
				// A value of a known named type: its method, or its
				// field (no method); else any method so named.
				if mu, f, _ := m.member(t, n.Sel.Name); mu != nil || f != nil {
					if mu != nil {
						r.methods = append(r.methods, mu)
					}
					ast.Inspect(n.X, walk)
					return false
				}
			}
			if x, ok := n.X.(*ast.Ident); ok && x.Obj == nil {
				if ip, ok := u.file.imports[x.Name]; ok {
					if d, ok := m.dirOf(ip); ok {
						r.imported = append(r.imported, [2]string{d, n.Sel.Name})
					} else if dep := m.dep(ip); dep != "" {
						r.external = append(r.external, dep)
					}
					return false
				}
			}
			r.selected = append(r.selected, n.Sel.Name)
			ast.Inspect(n.X, walk) // not n.Sel: a field or method, not a package-level name
			return false
		case *ast.FuncDecl:
			// The declared name is no reference.
			if n.Recv != nil {
				ast.Inspect(n.Recv, walk)
			}
			ast.Inspect(n.Type, walk)
			if n.Body != nil {
				ast.Inspect(n.Body, walk)
			}
			return false
		case *ast.Field:
			// Names of fields, parameters and interface methods are no
			// references either.
			ast.Inspect(n.Type, walk)
			return false
		case *ast.TypeSpec:
			if n.TypeParams != nil {
				ast.Inspect(n.TypeParams, walk)
			}
			ast.Inspect(n.Type, walk)
			return false
		case *ast.ValueSpec:
			if n.Type != nil {
				ast.Inspect(n.Type, walk)
			}
			for _, v := range n.Values {
				ast.Inspect(v, walk)
			}
			return false
		case *ast.Ident:
			r.local = append(r.local, n.Name)
			for _, d := range u.file.dotDirs {
				r.imported = append(r.imported, [2]string{d, n.Name})
			}
		}
		return true
	}
	ast.Inspect(u.node, walk)
	return r
}

// typeRef names a named type: its package's directory and its name.
type typeRef struct{ dir, name string }

// exprType is the named module type of expression e in unit u, when the
// syntax tells it: a local variable or parameter declared with a type, or
// defined (:=, var x =) by a composite literal (T{…}, &T{…}), a
// conversion T(x), a call of a module function or of a method on a value
// of known type (its result at that position), or another such
// expression; a field of a value of known type. The parser's resolution
// of local names says which declaration a name refers to.
func (m *modSource) exprType(u *unit, e ast.Expr, depth int) (typeRef, bool) {
	if depth > 20 {
		return typeRef{}, false
	}
	switch e := e.(type) {
	case *ast.ParenExpr:
		return m.exprType(u, e.X, depth+1)
	case *ast.StarExpr:
		return m.exprType(u, e.X, depth+1)
	case *ast.UnaryExpr:
		if e.Op == token.AND {
			return m.exprType(u, e.X, depth+1)
		}
	case *ast.CompositeLit:
		if e.Type != nil {
			return m.typeOf(u, e.Type)
		}
	case *ast.Ident:
		return m.varType(u, e, depth+1)
	case *ast.SelectorExpr:
		if t, ok := m.exprType(u, e.X, depth+1); ok {
			if _, f, fu := m.member(t, e.Sel.Name); f != nil {
				return m.typeOf(fu, f)
			}
		}
	case *ast.CallExpr:
		return m.callType(u, e, 0, depth+1)
	}
	return typeRef{}, false
}

// callType is the type of the i-th result of call c.
func (m *modSource) callType(u *unit, c *ast.CallExpr, i, depth int) (typeRef, bool) {
	if t, ok := m.typeOf(u, c.Fun); ok && i == 0 {
		if id, isID := c.Fun.(*ast.Ident); !isID || id.Obj == nil {
			return t, true // a conversion
		}
	}
	if f := m.callee(u, c.Fun, depth); f != nil {
		return m.result(f, i)
	}
	return typeRef{}, false
}

// varType is the type of the local variable or parameter id refers to.
func (m *modSource) varType(u *unit, id *ast.Ident, depth int) (typeRef, bool) {
	if id.Obj == nil || id.Obj.Kind != ast.Var {
		return typeRef{}, false
	}
	switch d := id.Obj.Decl.(type) {
	case *ast.Field:
		return m.typeOf(u, d.Type)
	case *ast.ValueSpec:
		if d.Type != nil {
			return m.typeOf(u, d.Type)
		}
		for i, n := range d.Names {
			if n.Name == id.Name && len(d.Values) == len(d.Names) {
				return m.exprType(u, d.Values[i], depth+1)
			}
		}
	case *ast.AssignStmt:
		for i, l := range d.Lhs {
			if n, ok := l.(*ast.Ident); !ok || n.Name != id.Name {
				continue
			}
			if len(d.Rhs) == len(d.Lhs) {
				if ta, ok := d.Rhs[i].(*ast.TypeAssertExpr); ok {
					if ta.Type == nil {
						return typeRef{}, false // a type switch
					}
					return m.typeOf(u, ta.Type)
				}
				return m.exprType(u, d.Rhs[i], depth+1)
			}
			if c, ok := d.Rhs[0].(*ast.CallExpr); ok && len(d.Rhs) == 1 {
				return m.callType(u, c, i, depth+1)
			}
		}
	}
	return typeRef{}, false
}

// callee is the function or method unit a call's Fun names: f, pkg.F, or
// x.M with x of known type; nil when it cannot tell.
func (m *modSource) callee(u *unit, fun ast.Expr, depth int) *unit {
	switch f := fun.(type) {
	case *ast.Ident:
		if f.Obj != nil && f.Obj.Kind != ast.Fun {
			return nil
		}
		for _, v := range u.pkg.scope[f.Name] {
			if _, ok := v.node.(*ast.FuncDecl); ok {
				return v
			}
		}
	case *ast.SelectorExpr:
		if x, ok := f.X.(*ast.Ident); ok && x.Obj == nil {
			if ip, ok := u.file.imports[x.Name]; ok {
				if d, ok := m.dirOf(ip); ok {
					if p, err := m.load(d); err == nil && p != nil {
						for _, v := range p.scope[f.Sel.Name] {
							if _, ok := v.node.(*ast.FuncDecl); ok {
								return v
							}
						}
					}
				}
				return nil
			}
		}
		if t, ok := m.exprType(u, f.X, depth+1); ok {
			mu, _, _ := m.member(t, f.Sel.Name)
			return mu
		}
	}
	return nil
}

// result is the named module type of f's i-th result.
func (m *modSource) result(f *unit, i int) (typeRef, bool) {
	fd := f.node.(*ast.FuncDecl)
	if fd.Type.Results == nil || fd.Type.TypeParams != nil {
		return typeRef{}, false
	}
	k := 0
	for _, fl := range fd.Type.Results.List {
		n := max(len(fl.Names), 1)
		if i < k+n {
			return m.typeOf(f, fl.Type)
		}
		k += n
	}
	return typeRef{}, false
}

// typeOf resolves a parameter's type expression in u's file to a named
// type of the module.
func (m *modSource) typeOf(u *unit, e ast.Expr) (typeRef, bool) {
	if s, ok := e.(*ast.StarExpr); ok {
		e = s.X
	}
	switch e := e.(type) {
	case *ast.Ident:
		for _, v := range u.pkg.scope[e.Name] {
			if _, ok := v.node.(*ast.TypeSpec); ok {
				return typeRef{u.pkg.dir, e.Name}, true
			}
		}
	case *ast.SelectorExpr:
		if x, ok := e.X.(*ast.Ident); ok {
			if ip, ok := u.file.imports[x.Name]; ok {
				if d, ok := m.dirOf(ip); ok {
					return typeRef{d, e.Sel.Name}, true
				}
			}
		}
	}
	return typeRef{}, false
}

// member resolves x.sel for x of type t: its method, or the type of its
// field (with the unit declaring it, whose imports the type expression
// uses); neither when it cannot tell (an interface, an alias, a type that
// embeds others: a promoted method or field).
func (m *modSource) member(t typeRef, sel string) (method *unit, field ast.Expr, in *unit) {
	p, err := m.load(t.dir)
	if err != nil || p == nil {
		return nil, nil, nil
	}
	for _, mu := range p.methods[t.name] {
		if mu.name == sel {
			return mu, nil, nil
		}
	}
	for _, v := range p.scope[t.name] {
		ts, ok := v.node.(*ast.TypeSpec)
		if !ok || ts.Assign.IsValid() {
			continue
		}
		st, ok := ts.Type.(*ast.StructType)
		if !ok {
			return nil, nil, nil
		}
		for _, f := range st.Fields.List {
			for _, n := range f.Names {
				if n.Name == sel {
					return nil, f.Type, v
				}
			}
		}
	}
	return nil, nil, nil
}

// ErrUndeclared says that a root is not declared in the module's non-test
// source (a function of a test, or of a notebook cell).
var ErrUndeclared = errors.New("not declared in the module's non-test source")

// reach is the set of units reached from a set of roots.
type reach struct {
	m        *modSource
	stops    map[*unit]bool
	units    map[*unit]bool
	from     map[*unit]*unit // the unit through which a unit was reached (nil for roots, methods and inits)
	queue    []*unit
	selected map[string]bool
	types    map[*pkg]map[string]bool // reached type names per package
	external map[string]bool
	err      error
}

// reached computes the units reachable from roots, not following stops.
// A root or stop is "dir.Name" or "dir.Type.Method", dir the package's
// slash directory in the module ("notebooks/protocol"; "" for the root
// package, written ".Name").
func (m *modSource) reached(roots, stops []string) (*reach, error) {
	r := &reach{m: m, stops: map[*unit]bool{}, units: map[*unit]bool{}, from: map[*unit]*unit{}, selected: map[string]bool{},
		types: map[*pkg]map[string]bool{}, external: map[string]bool{}}
	for _, n := range implicitMethods {
		r.selected[n] = true
	}
	for _, s := range stops {
		us, err := m.lookupDecl(s)
		if err != nil {
			continue // a stop not declared (in an older commit) stops nothing
		}
		for _, u := range us {
			r.stops[u] = true
		}
	}
	for _, s := range roots {
		us, err := m.lookupDecl(s)
		if err != nil {
			return nil, err
		}
		for _, u := range us {
			r.add(u)
		}
	}
	for {
		for len(r.queue) > 0 && r.err == nil {
			u := r.queue[0]
			r.queue = r.queue[1:]
			r.visit(u)
		}
		if r.err != nil {
			return nil, r.err
		}
		if !r.addInits() {
			return r, nil
		}
	}
}

// lookupDecl finds the units a root or stop names.
func (m *modSource) lookupDecl(s string) ([]*unit, error) {
	slash := strings.LastIndex(s, "/") + 1
	dot := strings.Index(s[slash:], ".")
	if dot < 0 {
		return nil, fmt.Errorf("code version: %q is not dir.Name or dir.Type.Method", s)
	}
	dir, name := s[:slash+dot], s[slash+dot+1:]
	p, err := m.load(dir)
	if err != nil {
		return nil, err
	}
	if p == nil {
		return nil, fmt.Errorf("code version: %s: no package in %q: %w", s, dir, ErrUndeclared)
	}
	var out []*unit
	if t, meth, ok := strings.Cut(name, "."); ok {
		for _, u := range p.methods[t] {
			if u.name == meth {
				out = append(out, u)
			}
		}
		if len(out) == 0 {
			// "F.G": a closure of function F (FuncDecl names one inlined
			// into F after both).
			for _, u := range p.scope[t] {
				if _, ok := u.node.(*ast.FuncDecl); ok {
					out = append(out, u)
				}
			}
		}
	} else {
		out = p.scope[name]
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("code version: %s is not declared in package %s (%s): %w", name, p.name, dir, ErrUndeclared)
	}
	return out, nil
}

func (r *reach) add(u *unit) {
	if r.units[u] || r.stops[u] {
		return
	}
	r.units[u] = true
	r.queue = append(r.queue, u)
	if ts, ok := u.node.(*ast.TypeSpec); ok {
		if r.types[u.pkg] == nil {
			r.types[u.pkg] = map[string]bool{}
		}
		r.types[u.pkg][ts.Name.Name] = true
		for _, mu := range u.pkg.methods[ts.Name.Name] {
			if r.selected[mu.name] {
				r.add(mu)
			}
		}
	}
}

func (r *reach) addFrom(v, u *unit) {
	if !r.units[v] && !r.stops[v] {
		r.from[v] = u
	}
	r.add(v)
}

// declsOf calls fn for every package-level declaration that the local
// and imported names of refs (made in unit u) name. Its error is the first
// package that failed to load (the others are still gone through).
func (m *modSource) declsOf(u *unit, refs refs, fn func(v *unit)) error {
	for _, n := range refs.local {
		for _, v := range u.pkg.scope[n] {
			fn(v)
		}
	}
	var first error
	for _, d := range refs.imported {
		p, err := m.load(d[0])
		if err != nil {
			first = cmp.Or(first, err)
			continue
		}
		if p != nil {
			for _, v := range p.scope[d[1]] {
				fn(v)
			}
		}
	}
	return first
}

func (r *reach) visit(u *unit) {
	refs := r.m.refsOf(u)
	if err := r.m.declsOf(u, refs, func(v *unit) { r.addFrom(v, u) }); err != nil {
		r.err = err
		return
	}
	for _, mu := range refs.methods {
		r.addFrom(mu, u)
	}
	for _, e := range refs.external {
		r.external[e] = true
	}
	for _, s := range refs.selected {
		if r.selected[s] {
			continue
		}
		r.selected[s] = true
		// Every reached type's method of this name is reached.
		for p, ts := range r.types {
			for t := range ts {
				for _, mu := range p.methods[t] {
					if mu.name == s {
						r.add(mu)
					}
				}
			}
		}
	}
}

// addInits adds the init functions (and `var _ = …` initialisers) of
// loaded packages that touch a reached variable: what they refer to,
// followed through functions and variables of module packages (methods
// are not followed here), includes a package-level variable the reached
// code refers to. It reports whether it added any.
func (r *reach) addInits() bool {
	added := false
	for _, p := range r.m.pkgs {
		if p == nil {
			continue
		}
		for _, iu := range p.inits {
			if r.units[iu] || r.stops[iu] {
				continue
			}
			if r.touchesReachedVar(iu) {
				r.add(iu)
				added = true
			}
		}
	}
	return added
}

func (r *reach) touchesReachedVar(start *unit) bool {
	seen := map[*unit]bool{start: true}
	queue := []*unit{start}
	for len(queue) > 0 {
		u := queue[0]
		queue = queue[1:]
		if u.kw == "var" && r.units[u] && u != start {
			return true
		}
		r.m.declsOf(u, r.m.refsOf(u), func(v *unit) {
			if seen[v] {
				return
			}
			switch v.node.(type) {
			case *ast.FuncDecl, *ast.ValueSpec:
				seen[v] = true
				queue = append(queue, v)
			}
		})
	}
	return false
}

// hash is the reached code's hash: the scheme, go.mod's go directive, the
// external modules the reached code refers to (path@version), and every
// reached unit as its package name, its key and its tokens (comments and
// layout dropped), sorted, so that neither the files a package's
// declarations sit in nor the package's directory counts.
func (r *reach) hash() (string, error) {
	type entry struct{ key, sum string }
	entries := make([]entry, 0, len(r.units))
	for u := range r.units {
		h := sha256.New()
		writeTokens(h, r.m.fset, u)
		for _, pat := range u.embed {
			files, err := fs.Glob(r.m.src, path.Join(u.pkg.dir, pat))
			if err != nil {
				return "", fmt.Errorf("code version: //go:embed %s: %w", pat, err)
			}
			for _, f := range files {
				b, err := r.m.src.ReadFile(f)
				if err != nil {
					return "", fmt.Errorf("code version: //go:embed %s: %w", pat, err)
				}
				fmt.Fprintf(h, "\x00embed %s %d\x00", path.Base(f), len(b))
				h.Write(b)
			}
		}
		if fd, ok := u.node.(*ast.FuncDecl); ok && fd.Body == nil {
			// A function without a body is written in the package's
			// assembly: its files count, without comments or layout.
			for _, f := range u.pkg.asm {
				b, err := r.m.src.ReadFile(f)
				if err != nil {
					return "", fmt.Errorf("code version: %w", err)
				}
				fmt.Fprintf(h, "\x00asm %s\x00", path.Base(f))
				h.Write(asmTokens(b))
			}
		}
		entries = append(entries, entry{u.pkg.name + "." + u.key, hex.EncodeToString(h.Sum(nil))})
	}
	slices.SortFunc(entries, func(a, b entry) int {
		return cmp.Or(strings.Compare(a.key, b.key), strings.Compare(a.sum, b.sum))
	})
	h := sha256.New()
	fmt.Fprintf(h, "%s\ngo %s\n", codeScheme, r.m.goLine)
	for _, e := range slices.Sorted(maps.Keys(r.external)) {
		fmt.Fprintf(h, "module %s\n", e)
	}
	for _, e := range entries {
		fmt.Fprintf(h, "%s %s\n", e.key, e.sum)
	}
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}

// dirs lists the package directories of the reached units.
func (r *reach) dirs() []string {
	set := map[string]bool{}
	for u := range r.units {
		set[u.pkg.dir] = true
	}
	return slices.Sorted(maps.Keys(set))
}

// writeTokens writes u's tokens, as the scanner reads them with comments
// skipped: a token per line, the literal text of identifiers and literals,
// ";" for every semicolon (written or inserted at a line's end), and no
// comma or semicolon before a closing bracket, so that gofmt's layout
// (where lines break, trailing commas, blank lines) does not count.
func writeTokens(w interface{ Write([]byte) (int, error) }, fset *token.FileSet, u *unit) {
	lo, hi := u.start-token.Pos(u.file.base), u.end-token.Pos(u.file.base)
	src := u.file.src[lo:hi]
	var s scanner.Scanner
	f := token.NewFileSet().AddFile("", -1, len(src))
	s.Init(f, src, nil, 0)
	if u.kw != "" {
		fmt.Fprintf(w, "%s\n", u.kw)
	}
	pending := token.ILLEGAL // a comma or semicolon not yet written
	for {
		_, tok, lit := s.Scan()
		if tok == token.EOF {
			return
		}
		closing := tok == token.RPAREN || tok == token.RBRACK || tok == token.RBRACE
		if pending != token.ILLEGAL && !closing {
			fmt.Fprintf(w, "%s\n", pending)
		}
		pending = token.ILLEGAL
		if tok == token.COMMA || tok == token.SEMICOLON {
			pending = tok
			continue
		}
		if tok.IsLiteral() {
			fmt.Fprintf(w, "%s %s\n", tok, lit)
		} else {
			fmt.Fprintf(w, "%s\n", tok)
		}
	}
}

// decls lists the reached units as "dir.key", sorted.
func (r *reach) decls() []string {
	out := make([]string, 0, len(r.units))
	for u := range r.units {
		out = append(out, u.pkg.dir+"."+u.key)
	}
	slices.Sort(out)
	return out
}

// asmTokens is an assembly file without its comments and layout: each
// line's fields joined by one space, empty lines dropped, so that only an
// edit of an instruction changes it.
func asmTokens(b []byte) []byte {
	var out []byte
	inBlock := false
	for _, line := range strings.Split(string(b), "\n") {
		if inBlock {
			i := strings.Index(line, "*/")
			if i < 0 {
				continue
			}
			line, inBlock = line[i+2:], false
		}
		if i := strings.Index(line, "/*"); i >= 0 {
			if j := strings.Index(line[i:], "*/"); j >= 0 {
				line = line[:i] + " " + line[i+j+2:]
			} else {
				line, inBlock = line[:i], true
			}
		}
		if i := strings.Index(line, "//"); i >= 0 {
			line = line[:i]
		}
		if f := strings.Fields(line); len(f) > 0 {
			out = append(out, strings.Join(f, " ")...)
			out = append(out, '\n')
		}
	}
	return out
}
