package browser

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
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

// Jupyter is a Jupyter Notebook server (classic notebook 6) on 127.0.0.1.
type Jupyter struct {
	URL   string // http://127.0.0.1:PORT
	Token string
	Log   string // file holding the server's output

	cmd     *exec.Cmd
	exited  chan struct{}
	logFile *os.File
}

// StartJupyter serves dir with the Jupyter at exe on a free port of
// 127.0.0.1 with a random token, writing its output to logPath, and waits
// until it answers. env is added to the server's environment (the kernels
// inherit it). The caller must call Stop, also when a test fails.
func StartJupyter(exe, dir, logPath string, env []string) (*Jupyter, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	tok := make([]byte, 24)
	if _, err := rand.Read(tok); err != nil {
		return nil, err
	}
	j := &Jupyter{URL: "http://127.0.0.1:" + strconv.Itoa(port), Token: hex.EncodeToString(tok), Log: logPath, exited: make(chan struct{})}
	args := []string{"notebook", "--no-browser", "--ip=127.0.0.1", "--port=" + strconv.Itoa(port),
		"--port-retries=0", "--notebook-dir=" + dir, "--NotebookApp.token=" + j.Token}
	if os.Geteuid() == 0 {
		args = append(args, "--allow-root")
	}
	if err := os.MkdirAll(filepath.Dir(logPath), 0o755); err != nil {
		return nil, err
	}
	j.logFile, err = os.Create(logPath)
	if err != nil {
		return nil, err
	}
	j.cmd = exec.Command(exe, args...)
	j.cmd.Dir = dir
	j.cmd.Env = append(os.Environ(), env...)
	j.cmd.Stdout, j.cmd.Stderr = j.logFile, j.logFile
	// Its own process group, so that Stop can signal the server and the
	// helpers it forks together.
	j.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := j.cmd.Start(); err != nil {
		j.logFile.Close()
		return nil, fmt.Errorf("starting %s: %w", exe, err)
	}
	go func() { j.cmd.Wait(); close(j.exited) }()

	deadline := time.Now().Add(90 * time.Second)
	for {
		select {
		case <-j.exited:
			return j, fmt.Errorf("jupyter exited before answering; its log: %s\n%s", logPath, tail(logPath, 20))
		default:
		}
		resp, err := http.Get(j.URL + "/api/status?token=" + j.Token)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return j, nil
			}
		}
		if time.Now().After(deadline) {
			return j, fmt.Errorf("jupyter did not answer on %s within 90 s; its log: %s\n%s", j.URL, logPath, tail(logPath, 20))
		}
		time.Sleep(300 * time.Millisecond)
	}
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
		j.logFile.Close()
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
	j.logFile.Close()
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
