// Command sign_request is the Portal Launcher signed_request signer: Go 1.18 or later, standard
// library only.
//
//	PORTAL_API_KEY=<api key> go run sign_request.go [--exact] < payload.json
//
// prints the signed_request of the JSON payload read from stdin; --exact signs the text exactly as
// given (no issuedAt or nonce added).
package main

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"time"
)

// SignJSON returns the signed_request of a JSON text (UTF-8 bytes), signed exactly as given.
func SignJSON(payloadJSON []byte, apiKey string) string {
	encoded := base64.StdEncoding.EncodeToString(payloadJSON)
	mac := hmac.New(sha256.New, []byte(apiKey))
	mac.Write([]byte(encoded)) // the HMAC is over the Base64 text, not over the JSON
	return base64.StdEncoding.EncodeToString(mac.Sum(nil)) + "." + encoded
}

// Sign returns the signed_request of a payload, with a fresh issuedAt and a random nonce added.
func Sign(payload map[string]any, apiKey string) (string, error) {
	nonce := make([]byte, 16)
	if _, err := rand.Read(nonce); err != nil {
		return "", err
	}
	fresh := make(map[string]any, len(payload)+2)
	for k, v := range payload {
		fresh[k] = v
	}
	fresh["issuedAt"] = time.Now().Unix()
	fresh["nonce"] = hex.EncodeToString(nonce)
	body, err := json.Marshal(fresh)
	if err != nil {
		return "", err
	}
	return SignJSON(body, apiKey), nil
}

func main() {
	key := os.Getenv("PORTAL_API_KEY")
	if key == "" {
		fmt.Fprintln(os.Stderr, "usage: PORTAL_API_KEY=<key> sign_request [--exact] < payload.json")
		os.Exit(2)
	}
	text, err := io.ReadAll(os.Stdin)
	if err == nil && len(os.Args) > 1 && os.Args[1] == "--exact" {
		fmt.Println(SignJSON(text, key))
		return
	}
	var payload map[string]any
	decoder := json.NewDecoder(bytes.NewReader(text))
	decoder.UseNumber() // keeps big integers (a sessionId) exact
	if err == nil {
		err = decoder.Decode(&payload)
	}
	signed := ""
	if err == nil {
		signed, err = Sign(payload, key)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println(signed)
}
