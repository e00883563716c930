// kmreduce: the memory of converted blocks of stored cells (cells.hpp),
// two blocks' worth reused block after block. A pass over a 10x file
// converts each block into the slot after the previous one's, so that the
// memory of the block being used and of the one being converted beside it
// is all there is, and no new memory comes and goes per block. Each block
// gets a generation number: a view of a block (slot, generation) is valid
// while its slot holds that generation, and stale once a later block was
// converted into the same slot. Memory still held by a conversion left
// running on its thread is never reused: the next block gets new memory.
#ifndef KMREDUCE_BLOCK_POOL_HPP
#define KMREDUCE_BLOCK_POOL_HPP

#include <algorithm>
#include <array>
#include <cstddef>
#include <memory>

#include "../runtime/memory.hpp"
#include "../runtime/parallel.hpp"

namespace kmreduce {

// One converted block's memory: gene (row) indices and values.
struct BlockMemory {
  AlignedArray<int> i;
  AlignedArray<double> x;
  index_t capacity = 0;
  double generation = 0;  // the block it holds (views of older ones are stale)
};

class BlockPool {
 public:
  // Where the next block of nnz stored values is converted: its slot, its
  // generation and its memory (which the conversion keeps while it writes).
  struct Block {
    int slot;
    double generation;
    std::shared_ptr<BlockMemory> memory;
  };
  Block next(index_t nnz) {
    const int slot = next_;
    next_ = 1 - next_;
    std::shared_ptr<BlockMemory>& m = memory_[static_cast<std::size_t>(slot)];
    const double generation = ++blocks_;
    // (memory a conversion abandoned on its thread still writes stays its own)
    if (!m || m.use_count() > 1 || m->capacity < nnz) {
      m = std::make_shared<BlockMemory>();
      const std::size_t n = static_cast<std::size_t>(std::max<index_t>(nnz, 1));
      m->i = aligned_array<int>(n, true);
      m->x = aligned_array<double>(n, true);
      m->capacity = nnz;
    }
    m->generation = generation;
    return Block{slot, generation, m};
  }
  // The memory of block `generation` converted into `slot`, or null when a
  // later block reused it (or the pool was released).
  BlockMemory* current(int slot, double generation) const {
    if (slot < 0 || slot > 1) return nullptr;
    BlockMemory* m = memory_[static_cast<std::size_t>(slot)].get();
    return m != nullptr && m->generation == generation ? m : nullptr;
  }
  // Frees the memory no conversion holds: every view is stale from now on.
  void release() {
    for (auto& m : memory_) m.reset();
  }

 private:
  std::array<std::shared_ptr<BlockMemory>, 2> memory_;
  int next_ = 0;
  double blocks_ = 0;  // blocks converted so far: each block's generation
};

}  // namespace kmreduce

#endif  // KMREDUCE_BLOCK_POOL_HPP
