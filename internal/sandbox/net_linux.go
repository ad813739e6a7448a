//go:build linux

package sandbox

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"strings"

	"golang.org/x/sys/unix"
)

// isolateNetwork moves the calling thread (locked, never returned to the
// scheduler) into a new network namespace: loopback up, and every other
// IPv4 and IPv6 address routed to it as a local one, so that a
// connection anywhere but a listener made there is refused at once
// instead of waiting for a network that is not there. It returns the
// watch of what crosses the loopback.
func isolateNetwork() (*netWatch, error) {
	if err := unix.Unshare(unix.CLONE_NEWNET); err != nil {
		return nil, fmt.Errorf("unshare(CLONE_NEWNET): %w", err)
	}
	idx, err := loopbackUp()
	if err != nil {
		return nil, err
	}
	if err := localRoute(unix.AF_INET, idx); err != nil {
		return nil, fmt.Errorf("routing IPv4 to the loopback: %w", err)
	}
	// IPv6 may be off in the kernel; then no IPv6 address is reachable
	// anyway (a connection fails at once, unreported).
	_ = localRoute(unix.AF_INET6, idx)
	return watchLoopback(idx)
}

// loopbackUp brings the namespace's lo up and returns its index.
func loopbackUp() (int, error) {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return 0, fmt.Errorf("a socket to configure lo: %w", err)
	}
	defer unix.Close(fd)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return 0, err
	}
	if err := unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, ifr); err != nil {
		return 0, fmt.Errorf("reading lo's flags: %w", err)
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP)
	if err := unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr); err != nil {
		return 0, fmt.Errorf("bringing lo up: %w", err)
	}
	if err := unix.IoctlIfreq(fd, unix.SIOCGIFINDEX, ifr); err != nil {
		return 0, fmt.Errorf("reading lo's index: %w", err)
	}
	return int(ifr.Uint32()), nil
}

// localRoute adds the route "local 0.0.0.0/0 dev lo" (or ::/0) to the
// namespace's local table over rtnetlink: every address of family is the
// machine's own, reached over lo.
func localRoute(family, ifindex int) error {
	fd, err := unix.Socket(unix.AF_NETLINK, unix.SOCK_RAW|unix.SOCK_CLOEXEC, unix.NETLINK_ROUTE)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	ne := binary.NativeEndian
	msg := make([]byte, unix.SizeofNlMsghdr+unix.SizeofRtMsg+unix.SizeofRtAttr+4)
	ne.PutUint32(msg[0:], uint32(len(msg)))
	ne.PutUint16(msg[4:], unix.RTM_NEWROUTE)
	ne.PutUint16(msg[6:], unix.NLM_F_REQUEST|unix.NLM_F_ACK|unix.NLM_F_CREATE|unix.NLM_F_EXCL)
	ne.PutUint32(msg[8:], 1) // sequence number
	rt := msg[unix.SizeofNlMsghdr:]
	rt[0] = byte(family)
	rt[4] = unix.RT_TABLE_LOCAL
	rt[5] = unix.RTPROT_BOOT
	rt[6] = unix.RT_SCOPE_HOST
	rt[7] = unix.RTN_LOCAL
	at := rt[unix.SizeofRtMsg:]
	ne.PutUint16(at[0:], unix.SizeofRtAttr+4)
	ne.PutUint16(at[2:], unix.RTA_OIF)
	ne.PutUint32(at[4:], uint32(ifindex))
	if err := unix.Sendto(fd, msg, 0, &unix.SockaddrNetlink{Family: unix.AF_NETLINK}); err != nil {
		return err
	}
	buf := make([]byte, 4096)
	n, _, err := unix.Recvfrom(fd, buf, 0)
	if err != nil {
		return err
	}
	if n < unix.SizeofNlMsghdr+4 || ne.Uint16(buf[4:]) != unix.NLMSG_ERROR {
		return errors.New("rtnetlink: no acknowledgement")
	}
	if code := int32(ne.Uint32(buf[unix.SizeofNlMsghdr:])); code != 0 {
		return unix.Errno(-code)
	}
	return nil
}

// netWatch is a packet socket on the namespace's loopback: it sees every
// packet the command sends but the traffic of the bridge's listener, and
// makes attempts of them.
type netWatch struct {
	fd       int
	attempts map[string]bool
}

// watchLoopback opens the packet socket on lo (index idx).
func watchLoopback(idx int) (*netWatch, error) {
	proto := int(htons(unix.ETH_P_ALL))
	fd, err := unix.Socket(unix.AF_PACKET, unix.SOCK_DGRAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, proto)
	if err != nil {
		return nil, fmt.Errorf("a packet socket on lo: %w", err)
	}
	if err := unix.Bind(fd, &unix.SockaddrLinklayer{Protocol: uint16(proto), Ifindex: idx}); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("binding the packet socket to lo: %w", err)
	}
	// Room for the attempts of a busy command: the bridge's own traffic
	// is filtered out (skip), so only attempts fill it.
	_ = unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_RCVBUFFORCE, 4<<20)
	return newNetWatch(fd), nil
}

// newNetWatch is the watch of the packet socket fd, which it then owns
// (a stage's, handed to tapeloop).
func newNetWatch(fd int) *netWatch {
	return &netWatch{fd: fd, attempts: map[string]bool{}}
}

// skip makes the socket ignore the TCP traffic of the listener on
// 127.0.0.1:port (classic BPF, over packets that start at the IP header).
func (w *netWatch) skip(port uint16) error {
	const (
		ldb  = unix.BPF_LD | unix.BPF_B | unix.BPF_ABS
		ldh  = unix.BPF_LD | unix.BPF_H | unix.BPF_ABS
		ldw  = unix.BPF_LD | unix.BPF_W | unix.BPF_ABS
		ldxh = unix.BPF_LD | unix.BPF_H | unix.BPF_IND
		msh  = unix.BPF_LDX | unix.BPF_B | unix.BPF_MSH
		and  = unix.BPF_ALU | unix.BPF_AND | unix.BPF_K
		jeq  = unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K
		ret  = unix.BPF_RET | unix.BPF_K
	)
	const lo = 0x7f000001
	p := uint32(port)
	prog := []unix.SockFilter{
		/* 0 */ {Code: ldb, K: 0},
		/* 1 */ {Code: and, K: 0xf0},
		/* 2 */ {Code: jeq, K: 0x40, Jf: 12}, // not IPv4: keep (15)
		/* 3 */ {Code: ldb, K: 9},
		/* 4 */ {Code: jeq, K: unix.IPPROTO_TCP, Jf: 10}, // not TCP: keep
		/* 5 */ {Code: msh, K: 0}, // X = IPv4 header length
		/* 6 */ {Code: ldw, K: 16},
		/* 7 */ {Code: jeq, K: lo, Jf: 2}, // dst not 127.0.0.1: check src (10)
		/* 8 */ {Code: ldxh, K: 2},
		/* 9 */ {Code: jeq, K: p, Jt: 6}, // to the listener: drop (16)
		/* 10 */ {Code: ldw, K: 12},
		/* 11 */ {Code: jeq, K: lo, Jf: 3}, // src not 127.0.0.1: keep (15)
		/* 12 */ {Code: ldxh, K: 0},
		/* 13 */ {Code: jeq, K: p, Jt: 2}, // from the listener: drop (16)
		/* 14 */ {Code: ret, K: 0xffff},
		/* 15 */ {Code: ret, K: 0xffff},
		/* 16 */ {Code: ret, K: 0},
	}
	return unix.SetsockoptSockFprog(w.fd, unix.SOL_SOCKET, unix.SO_ATTACH_FILTER,
		&unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]})
}

// drain reads every packet queued on the socket (the command has exited:
// each packet it sent over lo was queued as it was sent) and notes the
// attempts among them.
func (w *netWatch) drain() {
	buf := make([]byte, 1<<16)
	for {
		n, _, err := unix.Recvfrom(w.fd, buf, 0)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return
		}
		if a := attempt(buf[:n]); a != "" {
			w.attempts[a] = true
		}
	}
}

// close drains the socket, closes it and returns the attempts, sorted.
func (w *netWatch) close() []string {
	w.drain()
	unix.Close(w.fd)
	out := make([]string, 0, len(w.attempts))
	for a := range w.attempts {
		out = append(out, a)
	}
	slices.Sort(out)
	return out
}

// attempt describes the packet p (from its IP header on) when it starts
// a connection or carries a datagram: "connect tcp ADDR", "DNS lookup of
// NAME (udp ADDR)", "send udp ADDR", "ping ADDR"; "" for any other packet
// (an answer, the rest of a connection, an error the kernel sends back).
func attempt(p []byte) string {
	if len(p) < 1 {
		return ""
	}
	var proto byte
	var dst netip.Addr
	var l4 []byte
	switch p[0] >> 4 {
	case 4:
		ihl := int(p[0]&0xf) * 4
		if len(p) < 20 || len(p) < ihl {
			return ""
		}
		proto, dst, l4 = p[9], netip.AddrFrom4([4]byte(p[16:20])), p[ihl:]
	case 6:
		if len(p) < 40 {
			return ""
		}
		proto, dst, l4 = p[6], netip.AddrFrom16([16]byte(p[24:40])), p[40:]
	default:
		return ""
	}
	switch proto {
	case unix.IPPROTO_TCP:
		const syn, ack = 0x02, 0x10
		if len(l4) < 14 || l4[13]&(syn|ack) != syn {
			return ""
		}
		return "connect tcp " + netip.AddrPortFrom(dst, binary.BigEndian.Uint16(l4[2:])).String()
	case unix.IPPROTO_UDP:
		if len(l4) < 8 {
			return ""
		}
		to := netip.AddrPortFrom(dst, binary.BigEndian.Uint16(l4[2:]))
		if to.Port() == 53 {
			if name := dnsQuestion(l4[8:]); name != "" {
				return fmt.Sprintf("DNS lookup of %s (udp %s)", name, to)
			}
		}
		return "send udp " + to.String()
	case unix.IPPROTO_ICMP, unix.IPPROTO_ICMPV6:
		if len(l4) > 0 && (l4[0] == 8 || l4[0] == 128) { // echo request
			return "ping " + dst.String()
		}
	}
	return ""
}

// dnsQuestion returns the name of a DNS query's first question, or "".
func dnsQuestion(m []byte) string {
	if len(m) < 13 || m[2]&0x80 != 0 { // a response, not a query
		return ""
	}
	var labels []string
	for i := 12; i < len(m) && len(labels) < 128; {
		n := int(m[i])
		if n == 0 {
			return strings.Join(labels, ".")
		}
		if n&0xc0 != 0 || i+1+n > len(m) {
			return ""
		}
		labels = append(labels, string(m[i+1:i+1+n]))
		i += 1 + n
	}
	return ""
}

// htons converts a 16-bit number to network byte order.
func htons(v uint16) uint16 { return v<<8 | v>>8 }
