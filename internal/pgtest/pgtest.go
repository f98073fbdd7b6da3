// Package pgtest starts a throw-away PostgreSQL cluster for tests: initdb in
// a temporary directory, pg_ctl start on a free loopback port, removed when
// the test ends. Nothing of a machine's own PostgreSQL is touched.
//
// Like testtool, a missing PostgreSQL server skips the test locally and
// fails it under CI=true.
package pgtest

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/svc-geodata/svc/internal/testtool"
)

// Cluster is a running throw-away PostgreSQL server.
type Cluster struct {
	Dir  string
	Port int
	bin  string
	asPG bool // run the server commands as the postgres user (initdb refuses root)
}

// Bin returns the directory of the PostgreSQL server binaries, or "".
func Bin() string {
	m, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	if len(m) == 0 {
		if p, err := exec.LookPath("initdb"); err == nil {
			return filepath.Dir(p)
		}
		return ""
	}
	sort.Strings(m)
	return filepath.Dir(m[len(m)-1])
}

// Start starts a cluster that lives until the test ends. The database
// "postgres" accepts the user "postgres" without a password on loopback.
func Start(t testing.TB) *Cluster {
	t.Helper()
	if Bin() == "" {
		testtool.Require(t, "initdb", "apt-get install postgresql")
	}
	c, err := start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

var shared struct {
	sync.Mutex
	c   *Cluster
	err error
}

// Shared returns one cluster for the whole test binary, started on first
// use; TestMain calls StopShared after m.Run. Tests give each its own
// database (CreateDB) so they stay independent.
func Shared(t testing.TB) *Cluster {
	t.Helper()
	if Bin() == "" {
		testtool.Require(t, "initdb", "apt-get install postgresql")
	}
	shared.Lock()
	defer shared.Unlock()
	if shared.c == nil && shared.err == nil {
		shared.c, shared.err = start()
	}
	if shared.err != nil {
		t.Fatal(shared.err)
	}
	return shared.c
}

// StopShared stops the cluster Shared started, if any.
func StopShared() {
	shared.Lock()
	defer shared.Unlock()
	if shared.c != nil {
		shared.c.Close()
		shared.c = nil
	}
}

func start() (*Cluster, error) {
	c := &Cluster{bin: Bin(), asPG: os.Geteuid() == 0}
	dir, err := os.MkdirTemp("", "svc-pg-*")
	if err != nil {
		return nil, err
	}
	c.Dir = dir
	if c.asPG {
		if _, err := user.Lookup("postgres"); err != nil {
			os.RemoveAll(dir)
			return nil, fmt.Errorf("running as root needs the postgres user (created by the postgresql package): %v", err)
		}
		os.Chmod(dir, 0o777)
	}
	if c.Port, err = freePort(); err != nil {
		return nil, err
	}
	if err := c.run("initdb", "-D", filepath.Join(dir, "data"), "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync"); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	if err := c.startServer(); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	return c, nil
}

// Close stops the server at once and removes its files.
func (c *Cluster) Close() {
	c.cmd("pg_ctl", "-D", filepath.Join(c.Dir, "data"), "-m", "immediate", "-w", "stop").Run()
	os.RemoveAll(c.Dir)
}

// URL returns the connection URL of database db.
func (c *Cluster) URL(db string) string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", c.Port, db)
}

// CreateDB creates an empty database and returns its URL.
func (c *Cluster) CreateDB(t testing.TB, name string) string {
	t.Helper()
	out, err := exec.Command("psql", "-h", "127.0.0.1", "-p", strconv.Itoa(c.Port), "-U", "postgres",
		"-v", "ON_ERROR_STOP=1", "-c", "CREATE DATABASE "+name).CombinedOutput()
	if err != nil {
		t.Fatalf("create database %s: %v: %s", name, err, out)
	}
	return c.URL(name)
}

// Stop stops the server (fast shutdown), for tests of outages; Restart
// starts it again on the same port.
func (c *Cluster) Stop(t testing.TB) {
	t.Helper()
	if err := c.run("pg_ctl", "-D", filepath.Join(c.Dir, "data"), "-m", "fast", "-w", "stop"); err != nil {
		t.Fatal(err)
	}
}

// Restart starts a stopped cluster again.
func (c *Cluster) Restart(t testing.TB) {
	t.Helper()
	if err := c.startServer(); err != nil {
		t.Fatal(err)
	}
}

func (c *Cluster) startServer() error {
	return c.run("pg_ctl", "-D", filepath.Join(c.Dir, "data"), "-l", filepath.Join(c.Dir, "log"), "-w", "-t", "60", "-o",
		fmt.Sprintf("-p %d -k %s -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=300", c.Port, c.Dir), "start")
}

func (c *Cluster) cmd(name string, args ...string) *exec.Cmd {
	path := filepath.Join(c.bin, name)
	if c.asPG {
		return exec.Command("runuser", append([]string{"-u", "postgres", "--", path}, args...)...)
	}
	return exec.Command(path, args...)
}

func (c *Cluster) run(name string, args ...string) error {
	if out, err := c.cmd(name, args...).CombinedOutput(); err != nil {
		log, _ := os.ReadFile(filepath.Join(c.Dir, "log"))
		return fmt.Errorf("pgtest: %s %s: %v\n%s\n%s", name, strings.Join(args, " "), err, out, log)
	}
	return nil
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
