#include "cache/doorkeeper.h"

namespace hintfs {

namespace {

// Two bit positions from one hash: std::hash of an integer is the identity
// and a string's hash is only as good as it is, so the bits are mixed first
// (the finalizer of SplitMix64).
uint64_t Mix(uint64_t h) {
  h ^= h >> 30;
  h *= 0xbf58476d1ce4e5b9ull;
  h ^= h >> 27;
  h *= 0x94d049bb133111ebull;
  return h ^ (h >> 31);
}

}  // namespace

Doorkeeper::Doorkeeper(size_t keys) : keys_(0), next_keys_(keys > 0 ? keys : 1) { Rotate(); }

void Doorkeeper::Rotate() {
  if (next_keys_ != keys_) {
    keys_ = next_keys_;
    uint64_t bits = 64;
    while (bits < keys_ * kBitsPerKey) bits <<= 1;
    mask_ = bits - 1;
    // A resize forgets the older generation: its bits were placed for
    // another table size.
    older_.assign(bits / 64, 0);
  } else {
    older_.swap(newer_);
  }
  newer_.assign((mask_ + 1) / 64, 0);
  inserted_ = 0;
}

bool Doorkeeper::Has(const std::vector<uint64_t>& bits, uint64_t hash) const {
  const uint64_t a = hash & mask_, b = (hash >> 32) & mask_;
  return (bits[a / 64] >> (a % 64) & 1) && (bits[b / 64] >> (b % 64) & 1);
}

void Doorkeeper::Set(std::vector<uint64_t>* bits, uint64_t hash) {
  const uint64_t a = hash & mask_, b = (hash >> 32) & mask_;
  (*bits)[a / 64] |= 1ull << (a % 64);
  (*bits)[b / 64] |= 1ull << (b % 64);
}

bool Doorkeeper::SeenOrRemember(uint64_t hash) {
  const uint64_t h = Mix(hash);
  if (Has(newer_, h) || Has(older_, h)) return true;
  if (inserted_ >= keys_) Rotate();
  Set(&newer_, h);
  inserted_++;
  return false;
}

}  // namespace hintfs
