package natsq

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// DefaultListen is where the embedded server listens: loopback, NATS's port.
const DefaultListen = "127.0.0.1:4222"

// Embedded is a nats-server running in this process with JetStream on a
// file store. Clients need the token kept in DataDir/token (mode 0600).
type Embedded struct {
	srv   *server.Server
	URL   string
	Token string
}

// TokenFile is where the embedded server's token is kept under dataDir.
func TokenFile(dataDir string) string { return filepath.Join(dataDir, "token") }

// ReadToken reads the token of the embedded server of dataDir.
func ReadToken(dataDir string) (string, error) {
	b, err := os.ReadFile(TokenFile(dataDir))
	if err != nil {
		return "", fmt.Errorf("the embedded broker's token: %v (start tether worker first, with the same --data-dir)", err)
	}
	return strings.TrimSpace(string(b)), nil
}

// loadOrMakeToken keeps one token per data dir, so workers and submitters
// that share it find the same one.
func loadOrMakeToken(dataDir string) (string, error) {
	if tok, err := ReadToken(dataDir); err == nil && tok != "" {
		return tok, nil
	}
	buf := make([]byte, 24)
	rand.Read(buf)
	tok := hex.EncodeToString(buf)
	if err := os.WriteFile(TokenFile(dataDir), []byte(tok+"\n"), 0o600); err != nil {
		return "", fmt.Errorf("write the embedded broker's token: %v", err)
	}
	return tok, nil
}

// StartEmbedded starts the server on listen (host:port) with its store
// and token under dataDir.
func StartEmbedded(dataDir, listen string) (*Embedded, error) {
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return nil, fmt.Errorf("--data-dir %s: %v", dataDir, err)
	}
	tok, err := loadOrMakeToken(dataDir)
	if err != nil {
		return nil, err
	}
	host, portText, err := net.SplitHostPort(listen)
	if err != nil {
		return nil, fmt.Errorf("embedded broker address %q: %v (want host:port)", listen, err)
	}
	port, err := strconv.Atoi(portText)
	if err != nil {
		return nil, fmt.Errorf("embedded broker address %q: bad port", listen)
	}
	if port == 0 {
		port = server.RANDOM_PORT
	}
	srv, err := server.NewServer(&server.Options{
		ServerName: "tether-embedded", Host: host, Port: port,
		JetStream: true, StoreDir: filepath.Join(dataDir, "jetstream"),
		Authorization: tok, NoSigs: true, NoLog: true,
	})
	if err != nil {
		return nil, fmt.Errorf("embedded broker: %v", err)
	}
	srv.Start()
	if !srv.ReadyForConnections(30 * time.Second) {
		srv.Shutdown()
		srv.WaitForShutdown()
		return nil, errors.New("embedded broker did not start listening on " + listen + " in 30 s (is the port taken? another tether worker may be running: join it with --broker nats://" + listen + ")")
	}
	return &Embedded{srv: srv, URL: srv.ClientURL(), Token: tok}, nil
}

// Close shuts the server down and waits for it.
func (e *Embedded) Close() {
	e.srv.Shutdown()
	e.srv.WaitForShutdown()
}
