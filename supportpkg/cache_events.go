package supportpkg

// EventKind names what happened in a Cache.
type EventKind string

const (
	EventHit     EventKind = "hit"     // a package was served from the cache (checksum re-checked)
	EventMiss    EventKind = "miss"    // a package was not in the cache and is fetched
	EventStore   EventKind = "store"   // a fetched package was checked and stored; Bytes is its size
	EventEvict   EventKind = "evict"   // a package left the cache to keep it within its caps
	EventCorrupt EventKind = "corrupt" // a cached file no longer had its checksum; it was removed and fetched again
	// EventUnchecked: a package whose URL gives no checksum_sha256 was
	// fetched and used unchecked, as Neuro OJ's judge does; Checksum is
	// the SHA-256 of what was received, URL the URL (redacted). Told once
	// per package (URL) the Cache has seen, not on every use.
	EventUnchecked EventKind = "unchecked"
)

// Event is one cache event; Items and TotalBytes are the cache's size after it.
type Event struct {
	Kind       EventKind
	Checksum   string
	Bytes      int64
	Items      int
	TotalBytes int64
	URL        string // EventUnchecked
}

func (c *Cache) event(kind EventKind, sum string, size int64) Event {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.eventLocked(kind, sum, size)
}

func (c *Cache) eventLocked(kind EventKind, sum string, size int64) Event {
	return Event{Kind: kind, Checksum: sum, Bytes: size, Items: c.lru.Len(), TotalBytes: c.total}
}

func (c *Cache) emit(evs ...Event) {
	if c.onEvent == nil {
		return
	}
	for _, ev := range evs {
		c.onEvent(ev)
	}
}
