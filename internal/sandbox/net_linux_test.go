//go:build linux

package sandbox

import (
	"encoding/binary"
	"testing"
)

// ipv4 builds an IPv4 packet (RFC 791: a 20-byte header, protocol at
// byte 9, destination at 16) carrying l4 to dst.
func ipv4(proto byte, dst [4]byte, l4 []byte) []byte {
	p := make([]byte, 20, 20+len(l4))
	p[0] = 0x45
	p[9] = proto
	copy(p[12:], []byte{127, 0, 0, 1})
	copy(p[16:], dst[:])
	return append(p, l4...)
}

// ipv6 builds an IPv6 packet (RFC 8200: a 40-byte header, next header at
// byte 6, destination at 24).
func ipv6(proto byte, dst [16]byte, l4 []byte) []byte {
	p := make([]byte, 40, 40+len(l4))
	p[0] = 0x60
	p[6] = proto
	copy(p[24:], dst[:])
	return append(p, l4...)
}

// tcp builds a TCP header (RFC 9293: destination port at 2, flags at 13).
func tcp(port uint16, flags byte) []byte {
	h := make([]byte, 20)
	binary.BigEndian.PutUint16(h[2:], port)
	h[12] = 5 << 4
	h[13] = flags
	return h
}

// udp builds a UDP datagram (RFC 768) to port.
func udp(port uint16, payload []byte) []byte {
	h := make([]byte, 8, 8+len(payload))
	binary.BigEndian.PutUint16(h[2:], port)
	return append(h, payload...)
}

// query builds a DNS query (RFC 1035 4.1) for the name given as labels.
func query(labels ...string) []byte {
	m := make([]byte, 12)
	m[5] = 1 // one question
	for _, l := range labels {
		m = append(m, byte(len(l)))
		m = append(m, l...)
	}
	return append(m, 0, 0, 1, 0, 1)
}

// TestAttempt: the packets that start a connection or carry a datagram
// are attempts, named by their destination; the rest of a connection, an
// answer and what the kernel sends back are not.
func TestAttempt(t *testing.T) {
	v6 := [16]byte{0x20, 0x01, 0x0d, 0xb8, 15: 1}
	answer := query("example", "org")
	answer[2] |= 0x80
	for _, c := range []struct {
		name   string
		packet []byte
		want   string
	}{
		{"a SYN", ipv4(6, [4]byte{192, 0, 2, 1}, tcp(443, 0x02)), "connect tcp 192.0.2.1:443"},
		{"a SYN to another loopback port", ipv4(6, [4]byte{127, 0, 0, 1}, tcp(8080, 0x02)), "connect tcp 127.0.0.1:8080"},
		{"a SYN over IPv6", ipv6(6, v6, tcp(80, 0x02)), "connect tcp [2001:db8::1]:80"},
		{"a SYN-ACK", ipv4(6, [4]byte{127, 0, 0, 1}, tcp(40000, 0x12)), ""},
		{"an RST", ipv4(6, [4]byte{127, 0, 0, 1}, tcp(40000, 0x04)), ""},
		{"a DNS query", ipv4(17, [4]byte{10, 0, 0, 2}, udp(53, query("api", "openai", "com"))), "DNS lookup of api.openai.com (udp 10.0.0.2:53)"},
		{"a DNS answer", ipv4(17, [4]byte{10, 0, 0, 2}, udp(53, answer)), "send udp 10.0.0.2:53"},
		{"a datagram", ipv4(17, [4]byte{192, 0, 2, 7}, udp(9, []byte("x"))), "send udp 192.0.2.7:9"},
		{"a ping", ipv4(1, [4]byte{192, 0, 2, 1}, []byte{8, 0}), "ping 192.0.2.1"},
		{"port unreachable", ipv4(1, [4]byte{127, 0, 0, 1}, []byte{3, 3}), ""},
		{"an IPv6 ping", ipv6(58, v6, []byte{128, 0}), "ping 2001:db8::1"},
		{"a cut header", ipv4(6, [4]byte{192, 0, 2, 1}, nil)[:12], ""},
		{"a cut TCP header", ipv4(6, [4]byte{192, 0, 2, 1}, tcp(443, 0x02)[:10]), ""},
		{"nothing", nil, ""},
	} {
		if got := attempt(c.packet); got != c.want {
			t.Errorf("%s: attempt = %q, want %q", c.name, got, c.want)
		}
	}
}

// TestDNSQuestionCut: a query whose name runs past its end, or that uses
// a compression pointer (never in a question), gives no name.
func TestDNSQuestionCut(t *testing.T) {
	q := query("example", "org")
	if got := dnsQuestion(q[:16]); got != "" {
		t.Errorf("a cut name: %q", got)
	}
	ptr := append(make([]byte, 12), 0xc0, 0x0c)
	if got := dnsQuestion(ptr); got != "" {
		t.Errorf("a pointer: %q", got)
	}
}
