package lm

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// Message is one chat message of a prompt. Raw is the caller's original JSON
// object, forwarded unchanged to backends that speak chat messages; Content
// is its text (a string content, or the text parts of a list content joined).
type Message struct {
	Role    string
	Content string
	Raw     json.RawMessage
}

// ParsePrompt reads one prompt as rlm accepts it: a string (one user
// message), a list of message objects, or a single message object. Empty
// prompts are refused as rlm's truthiness test refuses them.
func ParsePrompt(raw json.RawMessage) ([]Message, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || isNull(raw) {
		return nil, ErrMissingPrompt
	}
	switch raw[0] {
	case '"':
		text, plain := "", false
		if requestSyntax.SkipString(raw, 0) == len(raw) {
			text, plain = plainString(raw)
		}
		if !plain {
			if err := json.Unmarshal(raw, &text); err != nil {
				return nil, fmt.Errorf("%w: %v", ErrInvalidPrompt, err)
			}
		}
		if text == "" {
			return nil, ErrMissingPrompt
		}
		const head = `{"role":"user","content":`
		obj := append(make([]byte, 0, len(head)+len(text)+3), head...)
		obj = append(appendString(obj, text), '}')
		return []Message{{Role: "user", Content: text, Raw: obj}}, nil
	case '[':
		var items []json.RawMessage
		if err := json.Unmarshal(raw, &items); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrInvalidPrompt, err)
		}
		if len(items) == 0 {
			return nil, ErrMissingPrompt
		}
		msgs := make([]Message, len(items))
		for i, item := range items {
			m, err := parseMessage(item)
			if err != nil {
				return nil, fmt.Errorf("%w: message %d: %v", ErrInvalidPrompt, i, err)
			}
			msgs[i] = m
		}
		return msgs, nil
	case '{':
		m, err := parseMessage(raw)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrInvalidPrompt, err)
		}
		return []Message{m}, nil
	}
	return nil, fmt.Errorf("%w: a prompt is a string or a list of messages, not %s", ErrInvalidPrompt, jsonKind(raw))
}

func parseMessage(raw json.RawMessage) (Message, error) {
	var m struct {
		Role    *string         `json:"role"`
		Content json.RawMessage `json:"content"`
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		return Message{}, fmt.Errorf("not a message object: %v", err)
	}
	if m.Role == nil || *m.Role == "" {
		return Message{}, fmt.Errorf(`message has no "role"`)
	}
	text, err := contentText(m.Content)
	if err != nil {
		return Message{}, err
	}
	return Message{Role: *m.Role, Content: text, Raw: raw}, nil
}

// contentText accepts OpenAI's two content forms: a string, or a list of
// parts of which the {"type":"text","text":...} ones carry text.
func contentText(raw json.RawMessage) (string, error) {
	if isNull(raw) {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s, nil
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", fmt.Errorf("message content is %s, not a string or a list of parts", jsonKind(raw))
	}
	var b strings.Builder
	for _, p := range parts {
		if p.Type == "text" {
			b.WriteString(p.Text)
		}
	}
	return b.String(), nil
}

func jsonKind(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "empty"
	}
	switch raw[0] {
	case '"':
		return "a string"
	case '[':
		return "an array"
	case '{':
		return "an object"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}
