// Command hello is the cheap-route ceiling of scripts/bench-peers: a minimal
// net/http server answering a small fixed JSON body, with no middleware. svc's
// /healthz and /v1/datasets are measured against it.
package main

import (
	"flag"
	"log"
	"net/http"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:18190", "listen address (loopback)")
	flag.Parse()
	body := []byte(`{"status":"ok"}` + "\n")
	http.HandleFunc("/", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write(body)
	})
	log.Fatal(http.ListenAndServe(*addr, nil))
}
