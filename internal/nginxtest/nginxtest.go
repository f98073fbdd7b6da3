// Package nginxtest starts Debian's nginx on a free loopback port for
// tests: as a static file server with range requests (the stand-in for
// object storage and COG hosts) or as a load balancer in front of svc
// replicas. It stops when the test ends. A missing nginx skips locally and
// fails under CI=true, like every interop tool.
package nginxtest

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/svc-geodata/svc/internal/testtool"
)

// Server is a running nginx.
type Server struct {
	URL string // http://127.0.0.1:port
	dir string
}

// AccessLog returns the access log written so far (one line per request:
// method, URI, status, bytes sent, Range header).
func (s *Server) AccessLog() string {
	b, _ := os.ReadFile(filepath.Join(s.dir, "access.log"))
	return string(b)
}

// Static serves the files below root, with byte ranges, ETags and
// Last-Modified as nginx does by default.
func Static(t testing.TB, root string) *Server {
	t.Helper()
	return start(t, fmt.Sprintf(`    location / { root %s; }`, root), "")
}

// Balancer proxies to the upstream addresses (host:port) round robin, adds
// X-Forwarded-For and retries idempotent requests on a dead upstream.
func Balancer(t testing.TB, upstreams []string) *Server {
	t.Helper()
	var ups strings.Builder
	ups.WriteString("  upstream svc {\n")
	for _, u := range upstreams {
		fmt.Fprintf(&ups, "    server %s max_fails=0;\n", u)
	}
	ups.WriteString("    keepalive 64;\n  }\n")
	loc := `    location / {
      proxy_pass http://svc;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header X-Forwarded-For $remote_addr;
      proxy_next_upstream error timeout;
    }`
	return start(t, loc, ups.String())
}

func start(t testing.TB, location, upstream string) *Server {
	t.Helper()
	nginx := testtool.Require(t, "nginx", "apt-get install nginx")
	dir := t.TempDir()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	user := ""
	if os.Geteuid() == 0 {
		// Workers would drop to nobody and could not read a test's 0700
		// temporary directories.
		user = "user root;"
	}
	conf := fmt.Sprintf(`%[5]s
worker_processes 1;
pid %[1]s/nginx.pid;
error_log %[1]s/error.log warn;
events { worker_connections 1024; }
http {
  log_format ranges '$request_method $uri $status $body_bytes_sent "$http_range"';
  access_log %[1]s/access.log ranges;
  client_body_temp_path %[1]s/body; proxy_temp_path %[1]s/proxy; fastcgi_temp_path %[1]s/fcgi;
  uwsgi_temp_path %[1]s/uwsgi; scgi_temp_path %[1]s/scgi;
%[2]s
  server {
    listen %[3]s;
%[4]s
  }
}
`, dir, upstream, addr, location, user)
	path := filepath.Join(dir, "nginx.conf")
	if err := os.WriteFile(path, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(nginx, "-c", path, "-p", dir, "-g", "daemon off;")
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGQUIT)
		cmd.Wait()
	})
	s := &Server{URL: "http://" + addr, dir: dir}
	for range 100 {
		if c, err := net.DialTimeout("tcp", addr, 100*time.Millisecond); err == nil {
			c.Close()
			return s
		}
		time.Sleep(50 * time.Millisecond)
	}
	log, _ := os.ReadFile(filepath.Join(dir, "error.log"))
	t.Fatalf("nginx did not listen on %s: %s", addr, log)
	return nil
}
