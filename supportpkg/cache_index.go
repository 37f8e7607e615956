package supportpkg

import (
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

type cacheEntry struct {
	sum  string
	size int64
}

// tmpPrefix starts the name of a file being fetched; staleTmp is how old
// one must be before start-up removes it (another worker may be writing it).
const (
	tmpPrefix = ".tmp-"
	staleTmp  = time.Hour
)

func (c *Cache) scan() error {
	ents, err := os.ReadDir(c.dir)
	if err != nil {
		return fmt.Errorf("support package cache: cannot read the cache folder %s: %w", c.dir, err)
	}
	type found struct {
		cacheEntry
		used time.Time
	}
	var all []found
	for _, e := range ents {
		info, err := e.Info()
		if err != nil || !info.Mode().IsRegular() {
			continue
		}
		name := e.Name()
		if strings.HasPrefix(name, tmpPrefix) {
			if time.Since(info.ModTime()) > staleTmp {
				os.Remove(filepath.Join(c.dir, name))
			}
			continue
		}
		sum, ok := strings.CutSuffix(name, ".zip")
		if !ok || len(sum) != 64 || strings.ToLower(sum) != sum {
			continue
		}
		if _, err := hex.DecodeString(sum); err != nil {
			continue
		}
		all = append(all, found{cacheEntry{sum, info.Size()}, info.ModTime()})
	}
	sort.Slice(all, func(i, j int) bool { return all[i].used.Before(all[j].used) })
	c.mu.Lock()
	for _, f := range all {
		c.index[f.sum] = c.lru.PushFront(&cacheEntry{f.sum, f.size})
		c.total += f.size
	}
	evs := c.evictLocked("")
	c.mu.Unlock()
	c.emit(evs...)
	return nil
}

func (c *Cache) path(sum string) string { return filepath.Join(c.dir, sum+".zip") }

// touch marks sum most recently used, here and on disk (its modification
// time orders the cache after a restart). A file another process stored
// joins the index here.
func (c *Cache) touch(sum string) {
	now := time.Now()
	c.mu.Lock()
	if el, ok := c.index[sum]; ok {
		c.lru.MoveToFront(el)
	} else if info, err := os.Stat(c.path(sum)); err == nil {
		c.index[sum] = c.lru.PushFront(&cacheEntry{sum, info.Size()})
		c.total += info.Size()
	} else {
		c.mu.Unlock()
		return
	}
	os.Chtimes(c.path(sum), now, now)
	evs := c.evictLocked(sum)
	c.mu.Unlock()
	c.emit(evs...)
}

// forget removes sum's file and entry.
func (c *Cache) forget(sum string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	os.Remove(c.path(sum))
	if el, ok := c.index[sum]; ok {
		c.total -= el.Value.(*cacheEntry).size
		c.lru.Remove(el)
		delete(c.index, sum)
	}
}

// evictLocked removes the least recently used packages until the cache is
// within its caps, never keep (the package a caller is about to use; alone
// it may exceed MaxBytes).
func (c *Cache) evictLocked(keep string) []Event {
	var evs []Event
	for c.lru.Len() > c.maxItems || c.total > c.maxBytes {
		el := c.lru.Back()
		e := el.Value.(*cacheEntry)
		if e.sum == keep {
			break
		}
		os.Remove(c.path(e.sum))
		c.lru.Remove(el)
		delete(c.index, e.sum)
		c.total -= e.size
		evs = append(evs, c.eventLocked(EventEvict, e.sum, e.size))
	}
	return evs
}
