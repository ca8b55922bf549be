package browser

import (
	"bufio"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// FindJupyter returns Debian's /usr/bin/jupyter when present (a pyenv
// python3 first on PATH has no Jupyter), else jupyter on PATH, as
// scripts/lib.sh does.
func FindJupyter() (string, error) {
	if st, err := os.Stat("/usr/bin/jupyter"); err == nil && st.Mode()&0o111 != 0 {
		return "/usr/bin/jupyter", nil
	}
	if p, err := exec.LookPath("jupyter"); err == nil {
		return p, nil
	}
	return "", errors.New("jupyter not found (looked for /usr/bin/jupyter and jupyter on PATH): run scripts/setup")
}

// Jupyter is a Jupyter Notebook server (classic notebook 6) started through
// scripts/notebook.
type Jupyter struct {
	URL   string // http://HOST:PORT, from the URL the script printed
	Token string // the token in that URL
	Open  string // the URL the script printed for the user to open
	Log   string // file holding the script's and the server's output

	cmd    *exec.Cmd
	exited chan struct{}
}

// urlPrefix starts the line of scripts/notebook that gives the URL to open.
const urlPrefix = "Open the notebooks at:"

// NotebookURL returns the URL on a line that scripts/notebook prints
// ("Open the notebooks at:  http://HOST:PORT/tree?token=TOKEN"), or false
// when the line is not that one.
func NotebookURL(line string) (string, bool) {
	rest, ok := strings.CutPrefix(strings.TrimSpace(line), urlPrefix)
	if !ok {
		return "", false
	}
	return strings.TrimSpace(rest), true
}

// ParseNotebookURL splits the URL scripts/notebook prints into the server's
// base URL and the token, and says what is wrong with a URL that is not
// http://HOST:PORT/tree?token=TOKEN.
func ParseNotebookURL(s string) (base, token string, err error) {
	u, err := url.Parse(s)
	if err != nil {
		return "", "", fmt.Errorf("the URL %q does not parse: %w", s, err)
	}
	token = u.Query().Get("token")
	switch {
	case u.Scheme != "http" || u.Host == "" || u.Port() == "":
		return "", "", fmt.Errorf("the URL %q is not http://HOST:PORT/...", s)
	case u.Path != "/tree":
		return "", "", fmt.Errorf("the URL %q does not open the file tree (/tree)", s)
	case token == "":
		return "", "", fmt.Errorf("the URL %q carries no token", s)
	}
	return u.Scheme + "://" + u.Host, token, nil
}

// StartNotebook starts the server the way the README tells users to:
// script is scripts/notebook, run with --no-setup (the caller checks what
// setup provides), --dir dir, a free port of 127.0.0.1 to start from and a
// random token. The script prints the URL to open and execs Jupyter, so the
// process started is the server. StartNotebook reads the URL from the
// script's output (written to logPath, with the server's), checks that it
// names the token given, and waits until the URL answers with the file
// tree. env is added to the environment (the kernels inherit it). The
// caller must call Stop, also when StartNotebook fails.
func StartNotebook(script, dir, logPath string, env []string) (*Jupyter, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	tok := make([]byte, 24)
	if _, err := rand.Read(tok); err != nil {
		return nil, err
	}
	token := hex.EncodeToString(tok)
	if err := os.MkdirAll(filepath.Dir(logPath), 0o755); err != nil {
		return nil, err
	}
	logFile, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	// Our own pipe rather than exec's: kernels inherit the server's output
	// and may outlive it, and Wait would wait for them to close it.
	pr, pw, err := os.Pipe()
	if err != nil {
		logFile.Close()
		return nil, err
	}
	j := &Jupyter{Log: logPath, exited: make(chan struct{})}
	j.cmd = exec.Command(script, "--no-setup", "--port", strconv.Itoa(port), "--token", token, "--dir", dir)
	j.cmd.Env = append(os.Environ(), env...)
	j.cmd.Stdout, j.cmd.Stderr = pw, pw
	// Its own process group, so that Stop can signal the server and the
	// helpers it forks together.
	j.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	err = j.cmd.Start()
	pw.Close()
	if err != nil {
		pr.Close()
		logFile.Close()
		return nil, fmt.Errorf("starting %s: %w", script, err)
	}
	go func() { j.cmd.Wait(); close(j.exited) }()

	// Copy the output to the log, and hand over the first URL line.
	printed := make(chan string, 1)
	go func() {
		defer logFile.Close()
		defer pr.Close()
		r := bufio.NewReader(pr)
		sent := false
		for {
			line, err := r.ReadString('\n')
			logFile.WriteString(line)
			if u, ok := NotebookURL(line); ok && !sent {
				printed <- u
				sent = true
			}
			if err != nil {
				return
			}
		}
	}()

	deadline := time.Now().Add(90 * time.Second)
	select {
	case j.Open = <-printed:
	case <-j.exited:
		return j, fmt.Errorf("%s exited without printing the URL to open; its log: %s\n%s", script, logPath, tail(logPath, 20))
	case <-time.After(time.Until(deadline)):
		return j, fmt.Errorf("%s printed no %q line within 90 s; its log: %s\n%s", script, urlPrefix, logPath, tail(logPath, 20))
	}
	j.URL, j.Token, err = ParseNotebookURL(j.Open)
	if err != nil {
		return j, fmt.Errorf("%s printed a URL to open that will not do: %w", script, err)
	}
	if j.Token != token {
		return j, fmt.Errorf("%s was given --token %s but printed a URL with token %s", script, token, j.Token)
	}
	for {
		select {
		case <-j.exited:
			return j, fmt.Errorf("jupyter exited before answering; its log: %s\n%s", logPath, tail(logPath, 20))
		default:
		}
		if err := answersTree(j.Open); err == nil {
			return j, nil
		} else if time.Now().After(deadline) {
			return j, fmt.Errorf("the URL %s printed by %s did not answer within 90 s (%v); its log: %s\n%s", j.Open, script, err, logPath, tail(logPath, 20))
		}
		time.Sleep(300 * time.Millisecond)
	}
}

// answersTree fetches the URL to open and checks that it shows the file
// tree: a wrong token also gets an answer, the login page.
func answersTree(u string) error {
	c := &http.Client{Timeout: 10 * time.Second}
	resp, err := c.Get(u)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("HTTP status %s", resp.Status)
	}
	if p := resp.Request.URL.Path; p != "/tree" {
		return fmt.Errorf("it answered with %s, not the file tree (is the token wrong?)", p)
	}
	return nil
}

// Stop shuts the kernels down through the REST API, ends the server, and
// then kills whatever the server had started (kernels, and GoNB's go and
// gopls processes) that is still alive. It is safe to call more than once.
func (j *Jupyter) Stop() {
	if j == nil || j.cmd == nil || j.cmd.Process == nil {
		return
	}
	select {
	case <-j.exited:
		return
	default:
	}
	// Everything the server started, found before anything is stopped: a
	// child whose parent has died is adopted by init and can no longer be
	// told from other processes.
	started := descendants(j.cmd.Process.Pid)

	j.shutdownKernels()
	// SIGTERM makes notebook 6 stop its loop and shut its kernels down.
	syscall.Kill(-j.cmd.Process.Pid, syscall.SIGTERM)
	select {
	case <-j.exited:
	case <-time.After(15 * time.Second):
		syscall.Kill(-j.cmd.Process.Pid, syscall.SIGKILL)
		<-j.exited
	}
	// Kernels run in sessions of their own; kill any left, with their groups.
	time.Sleep(500 * time.Millisecond)
	for _, p := range started {
		if p.alive() {
			syscall.Kill(-p.pid, syscall.SIGKILL) // its group, if it leads one
			syscall.Kill(p.pid, syscall.SIGKILL)
		}
	}
}

func (j *Jupyter) shutdownKernels() {
	c := &http.Client{Timeout: 10 * time.Second}
	resp, err := c.Get(j.URL + "/api/kernels?token=" + j.Token)
	if err != nil {
		return
	}
	var ks []struct{ ID string }
	json.NewDecoder(resp.Body).Decode(&ks)
	resp.Body.Close()
	for _, k := range ks {
		req, _ := http.NewRequest(http.MethodDelete, j.URL+"/api/kernels/"+k.ID+"?token="+j.Token, nil)
		if resp, err := c.Do(req); err == nil {
			resp.Body.Close()
		}
	}
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// tail returns the last n lines of a file.
func tail(path string, n int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// proc is a process, identified by its PID and start time (so that a
// reused PID is not mistaken for it).
type proc struct {
	pid   int
	start string
}

func (p proc) alive() bool {
	_, start, ok := readStat(p.pid)
	return ok && start == p.start
}

// readStat returns the parent PID and start time of a process from
// /proc/PID/stat.
func readStat(pid int) (ppid int, start string, ok bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, "", false
	}
	// The command name, in parentheses, may hold spaces: fields follow the last ')'.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, "", false
	}
	f := strings.Fields(s[i+1:])
	// f[0] is field 3 (state), so field 4 (ppid) is f[1], field 22 (starttime) f[19].
	if len(f) < 20 {
		return 0, "", false
	}
	ppid, err = strconv.Atoi(f[1])
	if err != nil {
		return 0, "", false
	}
	return ppid, f[19], true
}

// descendants lists the processes below root in the process tree.
func descendants(root int) []proc {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	children := map[int][]proc{}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if ppid, start, ok := readStat(pid); ok {
			children[ppid] = append(children[ppid], proc{pid, start})
		}
	}
	var out []proc
	queue := []int{root}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, c := range children[p] {
			out = append(out, c)
			queue = append(queue, c.pid)
		}
	}
	return out
}

// JupyterPython returns the Python that runs the Jupyter script at jupyter
// (the interpreter on its first line, which has nbformat), else
// /usr/bin/python3, as scripts/lib.sh does.
func JupyterPython(jupyter string) string {
	if b, err := os.ReadFile(jupyter); err == nil {
		first, _, _ := strings.Cut(string(b), "\n")
		if py, ok := strings.CutPrefix(first, "#!"); ok {
			if f := strings.Fields(py); len(f) > 0 {
				if st, err := os.Stat(f[0]); err == nil && st.Mode()&0o111 != 0 {
					return f[0]
				}
			}
		}
	}
	return "/usr/bin/python3"
}

// signedPy prints, for each notebook named on its command line, whether
// nbformat's notary (the one Jupyter asks when it opens a notebook, and
// scripts/setup signs with) holds its signature.
const signedPy = `import sys, nbformat
from nbformat.sign import NotebookNotary
notary = NotebookNotary()
for p in sys.argv[1:]:
    print("signed" if notary.check_signature(nbformat.read(p, as_version=4)) else "unsigned")
`

// Signed asks nbformat, through python, whether each notebook is signed as
// trusted for this user: an oracle for what the notebook UI should report.
func Signed(python string, notebooks ...string) ([]bool, error) {
	out, err := exec.Command(python, append([]string{"-c", signedPy}, notebooks...)...).CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("%s asking nbformat's notary about %v: %v\n%s", python, notebooks, err, out)
	}
	lines := strings.Fields(string(out))
	if len(lines) != len(notebooks) {
		return nil, fmt.Errorf("%s asking nbformat's notary about %v printed %q", python, notebooks, out)
	}
	res := make([]bool, len(lines))
	for i, l := range lines {
		res[i] = l == "signed"
	}
	return res, nil
}
