package scenario

import (
	"net"
	"net/netip"
	"slices"
	"strconv"
	"strings"

	"github.com/tapeloop/tapeloop/internal/yamlx"
	"go.yaml.in/yaml/v3"
)

// decodeAllowHosts decodes setup.allow_hosts: each entry a host (any
// port), a host and port, or "*" alone; nothing else, and nothing twice.
func decodeAllowHosts(d *yamlx.Decoder, n *yaml.Node) ([]string, error) {
	const path = "setup.allow_hosts"
	hosts, err := d.Strs(n, path)
	if err != nil {
		return nil, err
	}
	var seen []string
	for i, h := range hosts {
		item := n.Content[i]
		if h == "*" {
			if len(hosts) > 1 {
				return nil, d.Errf(item, path, "* allows every host: list nothing beside it")
			}
			continue
		}
		if problem := hostProblem(h); problem != "" {
			return nil, d.Errf(item, path, "%q%s", h, problem)
		}
		key := strings.ToLower(h)
		if slices.Contains(seen, key) {
			return nil, d.Errf(item, path, "%q is listed twice", h)
		}
		seen = append(seen, key)
	}
	return hosts, nil
}

// hostProblem says what is wrong with h as an entry of setup.allow_hosts
// (a host name or IP address, with a port or without), as the end of a
// sentence that starts with h; "" when nothing is.
func hostProblem(h string) string {
	if strings.Contains(h, "://") || strings.ContainsAny(h, "/?#@") {
		return " is a URL: want a host or HOST:PORT (localhost, api.example.com, 127.0.0.1:8931)"
	}
	host := h
	if _, err := netip.ParseAddr(h); err != nil { // a bare IPv6 address has colons of its own
		var port string
		if hh, p, err := net.SplitHostPort(h); err == nil {
			host, port = hh, p
			if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
				return ": the port is not a number from 1 to 65535"
			}
		}
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if host == "" {
		return ": no host"
	}
	if _, err := netip.ParseAddr(host); err == nil {
		return ""
	}
	if !hostName(host) {
		return " is not a host name or an IP address"
	}
	return ""
}

// hostName reports whether s is a DNS host name (RFC 1123): dot-separated
// labels of letters, digits and hyphens (underscores too, as some
// internal names have), none starting or ending with a hyphen, each at
// most 63 bytes, 253 in all.
func hostName(s string) bool {
	if len(s) > 253 {
		return false
	}
	for label := range strings.SplitSeq(s, ".") {
		if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		for _, c := range []byte(label) {
			if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
				return false
			}
		}
	}
	return true
}
