#include "fs/readahead.h"

#include <algorithm>
#include <cstring>

namespace hintfs {

ReadaheadPool::ReadaheadPool(uint64_t limit_bytes, size_t max_window)
    : limit_(limit_bytes), max_window_(max_window) {}

namespace {

// Adds bytes to counter unless that would pass limit.
bool AddWithin(std::atomic<uint64_t>* counter, uint64_t bytes, uint64_t limit) {
  uint64_t held = counter->load();
  do {
    if (held + bytes > limit) return false;
  } while (!counter->compare_exchange_weak(held, held + bytes));
  return true;
}

}  // namespace

bool ReadaheadPool::Take(uint64_t bytes) { return AddWithin(&used_, bytes, limit_); }

void ReadaheadPool::Give(uint64_t bytes) { used_.fetch_sub(bytes); }

bool ReadaheadPool::TakeUnconfirmed(uint64_t bytes) {
  if (!AddWithin(&unconfirmed_, bytes, limit_ / 4)) return false;
  if (Take(bytes)) return true;
  Confirm(bytes);
  return false;
}

void ReadaheadPool::CountFetch(uint64_t bytes) {
  fetches_.fetch_add(1, std::memory_order_relaxed);
  bytes_fetched_.fetch_add(bytes, std::memory_order_relaxed);
}

ReadaheadStats ReadaheadPool::stats() const {
  ReadaheadStats s;
  s.reads_served = served_.load(std::memory_order_relaxed);
  s.fetches = fetches_.load(std::memory_order_relaxed);
  s.bytes_fetched = bytes_fetched_.load(std::memory_order_relaxed);
  return s;
}

Readahead::Readahead(ReadaheadPool* pool) : pool_(pool) {}

Readahead::~Readahead() {
  std::lock_guard<std::mutex> l(mu_);
  DropAllLocked();
}

void Readahead::ReleaseLocked(Stream* s) {
  if (s->unconfirmed) pool_->Confirm(s->reserved);
  s->unconfirmed = false;
  pool_->Give(s->reserved);
  s->reserved = 0;
  std::string().swap(s->buffer);
}

void Readahead::ReleaseIfReadToTheEndLocked(Stream* s) {
  // A window that came back short ends at the end of the file: once read
  // to there, nothing more will come of it.
  if (s->ends_file && s->next == s->buffer_offset + s->buffer.size()) ReleaseLocked(s);
}

void Readahead::ShrinkIfMostlyReadLocked(Stream* s) {
  // A reader that stops short of the file's end (a compaction reads a
  // table's data blocks, not the index and filter after them) would keep a
  // whole window until its handle closes; a compaction's inputs together
  // then spent the pool. Copying what is left once, when it is under an
  // eighth of the buffer, costs at most an eighth of a window's bytes.
  if (s->buffer.size() < kShrinkFrom || s->next < s->buffer_offset) return;
  const uint64_t left = s->buffer_offset + s->buffer.size() - s->next;
  if (left * 8 >= s->buffer.size()) return;
  std::string rest = s->buffer.substr(static_cast<size_t>(s->next - s->buffer_offset));
  s->buffer.swap(rest);
  pool_->Give(s->reserved - left);
  s->reserved = static_cast<size_t>(left);
  s->buffer_offset = s->next;
}

void Readahead::DropAllLocked() {
  for (Stream& s : streams_) {
    if (!s.fetching) ReleaseLocked(&s);  // a fetching stream releases its own on return
    s.next = UINT64_MAX;
    s.window = 0;
    s.reads = 0;
  }
}

bool Readahead::ServeFromBufferLocked(uint64_t offset, size_t n, char* scratch, size_t* got) {
  for (Stream& s : streams_) {
    if (s.fetching || s.buffer.empty()) continue;
    uint64_t end = s.buffer_offset + s.buffer.size();
    if (offset < s.buffer_offset || offset + n > end) continue;
    std::memcpy(scratch, s.buffer.data() + (offset - s.buffer_offset), n);
    *got = n;
    const bool continued = offset == s.next;  // not a point read that fell inside
    if (s.unconfirmed) {
      if (!continued) continue;  // a re-read of a first block goes to the file
      pool_->Confirm(s.reserved);
      s.unconfirmed = false;
    }
    s.next = offset + n;
    s.last_use = ++tick_;
    ReleaseIfReadToTheEndLocked(&s);
    if (continued) ShrinkIfMostlyReadLocked(&s);
    pool_->CountServed();
    return true;
  }
  return false;
}

Readahead::Stream* Readahead::ContinuedStreamLocked(uint64_t offset) {
  for (Stream& s : streams_) {
    if (!s.fetching && s.next == offset) return &s;
  }
  return nullptr;
}

Readahead::Stream* Readahead::TrackLocked(uint64_t offset, size_t n) {
  // Point reads (a store's Gets on a table a compaction is reading through
  // the same handle) replace other reads that started nothing, then windows
  // no read has continued (a Get's of a first block), before they replace a
  // stream that is reading ahead.
  auto rank = [](const Stream& s) { return s.buffer.empty() ? 0 : s.unconfirmed ? 1 : 2; };
  Stream* victim = nullptr;
  for (Stream& s : streams_) {
    if (s.fetching) continue;
    bool better = victim == nullptr || rank(s) < rank(*victim) ||
                  (rank(s) == rank(*victim) && s.last_use < victim->last_use);
    if (better) victim = &s;
  }
  if (victim == nullptr) return nullptr;
  ReleaseLocked(victim);
  victim->next = offset + n;
  victim->window = 0;
  victim->reads = 1;
  victim->from_start = offset == 0;
  victim->last_use = ++tick_;
  return victim;
}

Status Readahead::Read(uint64_t offset, size_t n, char* scratch, size_t* got, const Fetch& fetch,
                       const Version& version, const SeekOutweighs& seek_outweighs) {
  *got = 0;
  const size_t max_window = pool_->max_window();
  if (n == 0 || max_window == 0) return fetch(offset, n, scratch, got);
  std::unique_lock<std::mutex> l(mu_);
  uint64_t v = version();
  if (v != version_) {
    DropAllLocked();
    version_ = v;
  }
  if (ServeFromBufferLocked(offset, n, scratch, got)) return Status::OK();
  Stream* s = n < max_window ? ContinuedStreamLocked(offset) : nullptr;
  if (s != nullptr && s->window != 0 && BuffersStartOf(*s, offset)) {
    return ReadAcrossBufferEnd(s, offset, n, scratch, got, fetch, version, &l);
  }
  if (s != nullptr && s->window == 0 && ++s->reads < kReadsBeforeWindow) {
    // Not a stream yet: point reads of neighbouring blocks (a store's Gets
    // from many threads on one table) continue one another now and then.
    s->next = offset + n;
    s->last_use = ++tick_;
    l.unlock();
    return fetch(offset, n, scratch, got);
  }
  if (s == nullptr) {
    Stream* fresh = n < max_window ? TrackLocked(offset, n) : nullptr;
    if (fresh != nullptr && offset == 0 && seek_outweighs && seek_outweighs(FirstWindow(*fresh, n))) {
      return ReadWindow(fresh, offset, n, scratch, got, fetch, version, /*unconfirmed=*/true, &l);
    }
    l.unlock();
    return fetch(offset, n, scratch, got);
  }
  return ReadWindow(s, offset, n, scratch, got, fetch, version, /*unconfirmed=*/false, &l);
}

bool Readahead::BuffersStartOf(const Stream& s, uint64_t offset) {
  return offset >= s.buffer_offset && offset < s.buffer_offset + s.buffer.size();
}

Status Readahead::ReadAcrossBufferEnd(Stream* s, uint64_t offset, size_t n, char* scratch,
                                      size_t* got, const Fetch& fetch, const Version& version,
                                      std::unique_lock<std::mutex>* l) {
  // Reading the next window from the read's own offset would read the
  // buffer's last bytes again: on a disk, a request that starts behind the
  // previous one's end waits for the platter to come round (the model
  // charges a seek; 1,287 of a LevelDB load's 1,296 large HDD reads paid
  // one). The buffered head is copied and the window read from the end.
  const uint64_t buffer_end = s->buffer_offset + s->buffer.size();
  const size_t head = static_cast<size_t>(buffer_end - offset);
  std::memcpy(scratch, s->buffer.data() + (offset - s->buffer_offset), head);
  if (s->ends_file) {  // the file ends with the buffer: the read is short
    *got = head;
    s->next = buffer_end;
    s->last_use = ++tick_;
    ReleaseIfReadToTheEndLocked(s);
    pool_->CountServed();
    return Status::OK();
  }
  const uint64_t read_version = version_;
  Status st = ReadWindow(s, buffer_end, n - head, scratch + head, got, fetch, version,
                         /*unconfirmed=*/false, l);
  if (!st.ok()) return st;
  *got += head;
  // The head is of the version the lock saw; a file written meanwhile is
  // read again whole (ReadWindow dropped its own buffer then).
  if (version() != read_version) return fetch(offset, n, scratch, got);
  return Status::OK();
}

size_t Readahead::FirstWindow(const Stream& s, size_t n) const {
  const size_t max_window = pool_->max_window();
  size_t window = s.from_start ? max_window / 8 : std::max(4 * n, kMinWindow);
  return std::min(std::max(window, n), max_window);
}

Status Readahead::ReadWindow(Stream* s, uint64_t offset, size_t n, char* scratch, size_t* got,
                             const Fetch& fetch, const Version& version, bool unconfirmed,
                             std::unique_lock<std::mutex>* l) {
  const size_t window = s->window == 0 ? FirstWindow(*s, n)
                                       : std::min(std::max((s->from_start ? 8 : 2) * s->window, n),
                                                  pool_->max_window());
  ReleaseLocked(s);
  s->last_use = ++tick_;
  if (!(unconfirmed ? pool_->TakeUnconfirmed(window) : pool_->Take(window))) {  // this read goes alone
    s->next = offset + n;
    l->unlock();
    return fetch(offset, n, scratch, got);
  }
  s->fetching = true;
  const uint64_t fetched_version = version_;
  l->unlock();
  std::string buffer(window, '\0');
  size_t fetched = 0;
  Status st = fetch(offset, window, buffer.data(), &fetched);
  if (st.ok()) pool_->CountFetch(fetched);
  l->lock();
  s->fetching = false;
  if (!st.ok() || version() != fetched_version || version_ != fetched_version) {
    // Nothing is kept from a failed read or from a file that changed under
    // it, and the read asked for goes alone: a damaged block further on is
    // the error of whoever reads it, not of this read.
    pool_->Give(window);
    if (unconfirmed) pool_->Confirm(window);
    s->next = UINT64_MAX;
    s->window = 0;
    l->unlock();
    return fetch(offset, n, scratch, got);
  }
  buffer.resize(fetched);
  *got = std::min(n, fetched);
  std::memcpy(scratch, buffer.data(), *got);
  s->buffer = std::move(buffer);
  s->buffer_offset = offset;
  s->reserved = window;
  s->unconfirmed = unconfirmed;
  s->window = window;
  s->ends_file = fetched < window;
  s->next = offset + *got;
  ReleaseIfReadToTheEndLocked(s);
  return Status::OK();
}

}  // namespace hintfs
