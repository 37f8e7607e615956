package jsonrpc

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"net"
	"net/http"
	"strings"
)

// MethodAuthenticate is the first call a client makes on a connection of a
// server that has a token (Options.Token): params {"token": T}.
const MethodAuthenticate = "rpc.authenticate"

// CodeUnauthorized answers a request sent before the connection
// authenticated, or with a wrong token.
const CodeUnauthorized = -32004

// ErrUnauthorized matches CodeUnauthorized by code.
var ErrUnauthorized = &Error{Code: CodeUnauthorized, Message: "unauthorized"}

func unauthorized(reason string) *Error {
	return ErrUnauthorized.withData("reason", reason)
}

// Authenticate makes the call a connection to a server with a token must
// make first.
func Authenticate(ctx context.Context, c *Conn, token string) error {
	return c.Call(ctx, MethodAuthenticate, map[string]string{"token": token}, nil)
}

// tokenMatches compares in constant time.
func tokenMatches(want []byte, got string) bool {
	return len(want) > 0 && subtle.ConstantTimeCompare(want, []byte(got)) == 1
}

// authenticate answers rpc.authenticate on the reader; a wrong token
// closes the connection after its answer.
func (c *Conn) authenticate(env *envelope, b *batchCollector) {
	var p struct {
		Token string `json:"token"`
	}
	var id []byte
	if env.hasID {
		id = env.id
	}
	if json.Unmarshal(env.params, &p) != nil || !tokenMatches(c.token, p.Token) {
		c.answerError(b, id, unauthorized("wrong token"))
		c.ch.Close()
		return
	}
	c.authed = true
	if id == nil {
		return
	}
	f := getFrame()
	defer putFrame(f)
	if err := f.result(id, map[string]bool{"authenticated": true}); err != nil {
		return
	}
	if b != nil {
		b.add(f.Bytes())
		return
	}
	c.write(f.Bytes())
}

// principalKey carries who an HTTP POST acts for.
type principalKey struct{}

// Principal identifies who sent a handler's request, for state kept per
// client (whose run a cancel may stop): the connection for a stream, and
// for HTTP, where each POST is a connection of its own, the credential the
// POST carried (every POST with the server's token is one principal).
// nil outside a handler.
func Principal(ctx context.Context) any {
	if p := ctx.Value(principalKey{}); p != nil {
		return p
	}
	if c := ConnFrom(ctx); c != nil {
		return c
	}
	return nil
}

// httpPrincipal is the principal of POSTs that carried the token.
type httpPrincipal struct{}

// checkHTTP refuses a POST without the bearer token, or, when hosts is not
// nil, one whose Host header is not one of them (a page in a browser that
// rebinds its domain name to 127.0.0.1 sends its own name).
func checkHTTP(w http.ResponseWriter, r *http.Request, token []byte, hosts []string) bool {
	if hosts != nil {
		host := r.Host
		if h, _, err := net.SplitHostPort(host); err == nil {
			host = h
		}
		host = strings.Trim(host, "[]")
		ok := false
		for _, want := range hosts {
			if strings.EqualFold(host, want) {
				ok = true
				break
			}
		}
		if !ok {
			http.Error(w, "Host "+r.Host+" is not this server's: use one of "+strings.Join(hosts, ", "), http.StatusMisdirectedRequest)
			return false
		}
	}
	if token == nil {
		return true
	}
	got, found := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !found || !tokenMatches(token, strings.TrimSpace(got)) {
		w.Header().Set("WWW-Authenticate", `Bearer realm="tether"`)
		writeHTTPError(w, http.StatusUnauthorized, nil,
			unauthorized(`send "Authorization: Bearer TOKEN" with the token from the server's --token-file`))
		return false
	}
	return true
}
