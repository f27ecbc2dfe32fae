package routing

// pathTable is the set of JSON paths that a group of matchers reads. The
// payload is scanned once per Input for the whole set, so matchers built
// together (the rules of one resolver) share a single scan. A table is
// filled while compiling and read-only afterwards.
type pathTable struct {
	root  pnode
	slots int
}

// pnode is one node of the path trie. The root stands for the whole
// document.
type pnode struct {
	key  string // member name this node is reached by
	idx  int    // array index this node is reached by, or -1
	slot int    // result slot of the path ending here, or -1
	kids []*pnode
}

func newPathTable() *pathTable {
	return &pathTable{root: pnode{idx: -1, slot: -1}}
}

// add registers a path and returns its result slot. Equal paths share a
// slot.
func (t *pathTable) add(segs []segment) int {
	n := &t.root
	for _, sg := range segs {
		var next *pnode
		for _, k := range n.kids {
			if k.key == sg.key {
				next = k
				break
			}
		}
		if next == nil {
			next = &pnode{key: sg.key, idx: sg.idx, slot: -1}
			n.kids = append(n.kids, next)
		}
		n = next
	}
	if n.slot < 0 {
		n.slot = t.slots
		t.slots++
	}
	return n.slot
}

// memberKid returns the child reached by the object member named key.
func (n *pnode) memberKid(key []byte) *pnode {
	for _, k := range n.kids {
		if string(key) == k.key {
			return k
		}
	}
	return nil
}

// indexKid returns the child reached by array element i.
func (n *pnode) indexKid(i int) *pnode {
	for _, k := range n.kids {
		if k.idx == i {
			return k
		}
	}
	return nil
}

// clear forgets every result recorded under n. It runs when an object
// member is entered, so that a repeated key replaces what an earlier
// occurrence recorded, as encoding/json does.
func (n *pnode) clear(vals []jval) {
	if n.slot >= 0 {
		vals[n.slot] = jval{}
	}
	for _, k := range n.kids {
		k.clear(vals)
	}
}
