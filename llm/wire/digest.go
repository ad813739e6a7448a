package wire

import (
	"crypto/sha256"
	"hash"
)

// A Responses request's body is digested whole for the id of its answer
// (Decoder.Keep). A request that repeats the previous one's items would
// digest them again, each request costing the whole conversation; the
// Decoder keeps the digest's state after the items instead, and goes on
// from it. The state is kept only when the bytes it read are the body's
// head and its items joined by bare commas (no white space), so that a
// later body whose skipped items end at the same length is, up to there,
// byte for byte the same (its head and items are the same bytes, and any
// separator but a bare comma would make it longer). The digest is then
// the state's, with the rest of the body read: the same as the whole
// body's SHA-256.

// digest returns the SHA-256 of body, decoded as next after the previous
// request (last; nil keeps nothing), reading from the state last kept
// when it can (see above), and keeps in next the state after next's
// elements when they are joined by bare commas.
func (last *decoded) digest(body []byte, next *decoded) [sha256.Size]byte {
	if last == nil {
		return sha256.Sum256(body)
	}
	end := -1 // where next's elements end: its tail starts
	if next.head != nil && next.tail != nil {
		end = len(body) - len(next.tail)
	}
	var h hash.Hash
	from := 0
	if last.sum != nil && next.skipped > 0 && next.skipped == len(last.raw) && next.at == last.sumLen && next.at <= end {
		if c, err := last.sum.(hash.Cloner).Clone(); err == nil {
			h, from = c.(hash.Hash), next.at
		}
	}
	if h == nil {
		h = sha256.New()
	}
	if end >= from {
		h.Write(body[from:end])
		from = end
		if end == joinedLen(next) {
			if c, err := h.(hash.Cloner).Clone(); err == nil {
				next.sum, next.sumLen = c.(hash.Hash), end
			}
		}
	}
	h.Write(body[from:])
	var sum [sha256.Size]byte
	h.Sum(sum[:0])
	return sum
}

// joinedLen returns the length of d's head and elements joined by bare
// commas.
func joinedLen(d *decoded) int {
	n := len(d.head)
	for i, r := range d.raw {
		if i > 0 {
			n++
		}
		n += len(r)
	}
	return n
}
