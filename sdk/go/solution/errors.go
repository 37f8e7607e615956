package solution

import (
	"errors"

	"github.com/tether-dev/tether/codec"
	"github.com/tether-dev/tether/sdk/go/internal/peer"
)

// Conditions of a failed CallCapability, for errors.Is.
var (
	ErrCapabilityNotFound = errors.New("capability not registered") // code NotFound
	ErrCapabilityRejected = errors.New("capability value rejected") // code Rejected, or refused before sending
	ErrCapabilityTimeout  = errors.New("capability timed out")      // code CallTimeout
	ErrCapability         = errors.New("capability failed")         // any other code
	ErrConnection         = peer.ErrClosed                          // the channel closed
)

// CapabilityError is an error frame received for a capability call.
type CapabilityError struct {
	Name    string
	Code    string
	Message string
	Trace   string
}

func (e *CapabilityError) Error() string {
	return "solution: capability " + e.Name + ": " + e.Code + ": " + e.Message
}

// Unwrap maps the code to its sentinel.
func (e *CapabilityError) Unwrap() error {
	switch e.Code {
	case codec.CodeNotFound:
		return ErrCapabilityNotFound
	case codec.CodeRejected:
		return ErrCapabilityRejected
	case codec.CodeCallTimeout:
		return ErrCapabilityTimeout
	}
	return ErrCapability
}
