// src/cuda/device_solver_out.cuh — DeviceFw's sparse order, round sequence and result
// download, defined out of the class (device_solver.cuh declares and documents them): the
// per-round tile lists and the permutation (docs/sparse.md), the rounds launched or captured
// into a CUDA graph, and the result leaving through pinned stages in the user's order.
#pragma once

#include "cuda/device_solver.cuh"

// Internal linkage, as in cuda/kernels/distances.cuh (included from device_solver.cuh only).
namespace apsp::cuda {
namespace {

template <class T>
void DeviceFw<T>::set_order(const detail::TilePlan& plan, const detail::Permutation& perm,
                            bool packed) {
  APSP_EXPECTS(plan.n == n_pad_ && plan.R == R_ && plan.n == n_,
               "cuda: tile plan for another matrix");
  APSP_EXPECTS(std::int64_t(perm.old_of_new.size()) == n_, "cuda: permutation for another matrix");
  for (std::int64_t I = 0; I <= R_; ++I)
    APSP_EXPECTS(plan.bounds[std::size_t(I)] == I * kTile,
                 "cuda: tile plan without uniform 128-wide tiles");
  std::vector<int> all;
  lists_at_.assign(std::size_t(R_), RoundLists{});
  // Round t's lists with t itself inserted (the pivot row / column is written back by the rest
  // update; tile (t, t) is left as closed: min(P*, P* (x) P*) = P*); int16x2: the word tiles.
  for (std::int64_t t = 0; t < R_; ++t) {
    const std::vector<int> rows = plan.rows_with_pivot(t), cols = plan.cols_with_pivot(t);
    const std::vector<int> words = detail::word_tiles(cols);
    RoundLists& l = lists_at_[std::size_t(t)];
    l.rows = std::int64_t(all.size());
    l.nrows = int(rows.size());
    all.insert(all.end(), rows.begin(), rows.end());
    l.cols = std::int64_t(all.size());
    l.ncols = int(cols.size());
    all.insert(all.end(), cols.begin(), cols.end());
    l.words = std::int64_t(all.size());
    l.nwords = int(words.size());
    all.insert(all.end(), words.begin(), words.end());
  }
  lists_ = DeviceBuffer<int>(all.size());
  APSP_CUDA_TRY(
      gpuMemcpy(lists_.get(), all.data(), all.size() * sizeof(int), gpuMemcpyHostToDevice));
  n_out_ = std::int64_t(perm.new_of_old.size());
  new_of_old_ = DeviceBuffer<int>(std::max<std::size_t>(perm.new_of_old.size(), 1));
  old_of_new_ = DeviceBuffer<int>(perm.old_of_new.size());
  APSP_CUDA_TRY(gpuMemcpy(new_of_old_.get(), perm.new_of_old.data(),
                          perm.new_of_old.size() * sizeof(int), gpuMemcpyHostToDevice));
  APSP_CUDA_TRY(gpuMemcpy(old_of_new_.get(), perm.old_of_new.data(),
                          perm.old_of_new.size() * sizeof(int), gpuMemcpyHostToDevice));
  ordered_ = true;
  set_batches(plan, packed);
}

template <class T>
void DeviceFw<T>::set_batches(const detail::TilePlan& plan, bool packed) {
  batches_ = BatchSet{};
  batches16_ = BatchSet{};
  if (!config::get_bool(config::Knob::NdBatch)) return;
  // The batches' panels share the dense rounds' scratch (R tile columns each; the int16x2
  // rounds' row panels R word tiles of it).
  const detail::BatchLimits lim{R_, R_, kBatchSlots, kBatchAloneTiles, false};
  batches_.host = detail::batch_rounds(plan, lim);
  const detail::RoundBatches& b = batches_.host;
  if (!b.ok || b.batches.empty()) {
    detail::trace(b.ok ? "cuda: no round batches (no two rounds of equal height are small)"
                       : "cuda: no round batches (the plan is no elimination tree)");
    batches_ = BatchSet{};
    return;
  }
  static_assert(sizeof(detail::BatchTask) == sizeof(int4), "a task is an int4");
  auto upload = [](BatchSet& set) {
    const detail::RoundBatches& h = set.host;
    std::vector<detail::BatchTask> tasks;
    tasks.reserve(h.closure.size() + h.panels.size() + h.rest.size() + h.contrib.size());
    for (const auto* part : {&h.closure, &h.panels, &h.rest, &h.contrib}) {
      if (part == &h.panels) set.panels = std::int64_t(tasks.size());
      if (part == &h.rest) set.rest = std::int64_t(tasks.size());
      if (part == &h.contrib) set.contrib = std::int64_t(tasks.size());
      tasks.insert(tasks.end(), part->begin(), part->end());
    }
    set.tasks = DeviceBuffer<int4>(tasks.size());
    APSP_CUDA_TRY(gpuMemcpy(set.tasks.get(), tasks.data(), tasks.size() * sizeof(int4),
                            gpuMemcpyHostToDevice));
    set.rounds = DeviceBuffer<detail::BatchRound>(h.rounds.size());
    APSP_CUDA_TRY(gpuMemcpy(set.rounds.get(), h.rounds.data(),
                            h.rounds.size() * sizeof(detail::BatchRound), gpuMemcpyHostToDevice));
    set.on = true;
    return std::int64_t(tasks.size());
  };
  std::int64_t tasks = 0;
  try {
    tasks = upload(batches_);
    if (packed) {  // the int16x2 rounds: columns in word tiles
      APSP_EXPECTS((std::is_same_v<T, int>), "cuda: int16x2 rounds for an int32 matrix only");
      batches16_.host = detail::batch_rounds(plan, {R_, R_, kBatchSlots, kBatchAloneTiles, true});
      tasks += upload(batches16_);
    }
    std::int64_t slots = 0;
    for (const detail::RoundBatch& r : b.batches) slots = std::max(slots, r.nrounds);
    batch_pS_ = DeviceBuffer<T>(std::size_t(slots) * kTile * kTile);
    batch_pT_ = DeviceBuffer<T>(std::size_t(slots) * kTile * kTile);
  } catch (const ResourceError& e) {  // no room for the tasks: the rounds one by one
    batches_ = BatchSet{};
    batches16_ = BatchSet{};
    batch_pS_ = DeviceBuffer<T>();
    batch_pT_ = DeviceBuffer<T>();
    detail::trace((std::string("cuda: no round batches (") + e.what() + ")").c_str());
    return;
  }
  detail::trace(("cuda: " + std::to_string(R_) + " rounds in " + std::to_string(b.heights) +
                 " heights: " + std::to_string(b.batched_rounds) + " in " +
                 std::to_string(b.batches.size()) + " batches, " +
                 std::to_string(std::int64_t(b.items.size() - b.batches.size())) + " alone; " +
                 std::to_string(tasks) + " tasks")
                    .c_str());
}

template <class T>
void DeviceFw<T>::run_batch(const detail::RoundBatch& b) {
  const BatchSet& s = batches_;
  BatchArgs<T> a{d_.get(),     n_pad_,      rowp_.get(),     n_pad_,
                 colT_.get(),  csT_.get(),  n_pad_,          batch_pS_.get(),
                 batch_pT_.get(), s.rounds.get(), nullptr,   s.tasks.get() + s.contrib};
  a.tasks = s.tasks.get() + b.closure0;
  launch_closure_batched<T>(a, b.nclosure, stream_);
  a.tasks = s.tasks.get() + s.panels + b.panel0;
  launch_gemm_batched<T, GemmMode::Panels>(a, b.npanel, stream_);
  a.tasks = s.tasks.get() + s.rest + b.rest0;
  launch_gemm_batched<T, GemmMode::Rest>(a, b.nrest, stream_);
}

template <class T>
void DeviceFw<T>::run_batch16(const detail::RoundBatch& b) {
  static_assert(std::is_same_v<T, int>, "int16x2 rounds");
  const BatchSet& s = batches16_;
  const std::int64_t l16 = ld16();
  unsigned* pT16 = reinterpret_cast<unsigned*>(batch_pT_.get());
  // As s16_round_part: the closure on the packed matrix, the column panels in int32 stored
  // replicated (colT), the row panels over word tiles (rowp, here n_pad words a row: R word
  // tiles of scratch), the rest over word tiles.
  BatchArgs<int> ai{nullptr,      n_pad_,     rowp_.get(),     n_pad_,
                    colT_.get(),  csT_.get(), n_pad_,          batch_pS_.get(),
                    batch_pT_.get(), s.rounds.get(), nullptr,  s.tasks.get() + s.contrib};
  BatchArgs<unsigned> aw{d16_.get(),
                         l16,
                         reinterpret_cast<unsigned*>(rowp_.get()),
                         n_pad_,
                         reinterpret_cast<unsigned*>(colT_.get()),
                         nullptr,
                         n_pad_,
                         nullptr,
                         pT16,
                         s.rounds.get(),
                         nullptr,
                         s.tasks.get() + s.contrib};
  ai.tasks = s.tasks.get() + b.closure0;
  launch_closure_s16_batched(ai, d16_.get(), l16, pT16, b.nclosure, stream_);
  aw.tasks = s.tasks.get() + s.panels + b.panel0;
  launch_gemm_batched<unsigned, GemmMode::RowPanel>(aw, b.nrowpanel, stream_);
  ai.tasks = s.tasks.get() + s.panels + b.panel0 + b.nrowpanel;
  launch_gemm_batched<int, GemmMode::ColPanelRep>(ai, b.npanel - b.nrowpanel, stream_);
  aw.tasks = s.tasks.get() + s.rest + b.rest0;
  launch_gemm_batched<unsigned, GemmMode::Rest>(aw, b.nrest, stream_);
}

template <class T>
bool DeviceFw<T>::run_schedule(const ProgressFn& progress, const std::function<bool()>& abandon,
                               bool timed, bool packed) {
  const BatchSet& set = packed ? batches16_ : batches_;
  if (!set.on) {
    if constexpr (std::is_same_v<T, int>) {
      if (packed) {
        PackedRounds ops(*this);
        return detail::run_rounds(ops, progress, abandon);
      }
    }
    return detail::run_rounds(*this, progress, abandon);
  }
  // One round on its own, one batch (int16x2 rounds: only where T is int).
  auto alone = [&](std::int64_t t) {
    if constexpr (std::is_same_v<T, int>) {
      if (packed) {
        for (int part = 0; part < 4; ++part) s16_round_part(t, part);
        return;
      }
    }
    close_pivot(t);
    update_panels(t);
    update_rest(t);
  };
  auto batch = [&](const detail::RoundBatch& b) {
    if constexpr (std::is_same_v<T, int>) {
      if (packed) return run_batch16(b);
    }
    run_batch(b);
  };
  const detail::RoundBatches& sched = set.host;
  // timed (APSP_TRACE): an event before each step and after the last; their GPU times summed
  // for the rounds run alone and for the batches, with the rest tiles each did.
  std::vector<gpuEvent_t> ev(timed ? sched.items.size() + 1 : 0, nullptr);
  struct Destroy {
    std::vector<gpuEvent_t>& ev;
    ~Destroy() {
      for (gpuEvent_t e : ev)
        if (e) (void)gpuEventDestroy(e);
    }
  } destroy{ev};
  for (gpuEvent_t& e : ev) APSP_CUDA_TRY(gpuEventCreate(&e));
  std::int64_t done = 0;
  for (std::size_t i = 0; i < sched.items.size(); ++i) {
    const detail::BatchItem& it = sched.items[i];
    if (abandon && abandon()) return false;
    if (timed) APSP_CUDA_TRY(gpuEventRecord(ev[i], stream_));
    if (it.batch < 0) {
      alone(it.round);
      ++done;
    } else {
      const detail::RoundBatch& b = sched.batches[std::size_t(it.batch)];
      batch(b);
      done += b.nrounds;
    }
    if (progress) progress(done, R_);
  }
  if (!timed) return true;
  APSP_CUDA_TRY(gpuEventRecord(ev.back(), stream_));
  APSP_CUDA_TRY(gpuEventSynchronize(ev.back()));
  double ms[2] = {0, 0}, tiles[2] = {0, 0};
  std::int64_t steps[2] = {0, 0};
  for (std::size_t i = 0; i < sched.items.size(); ++i) {
    const detail::BatchItem& it = sched.items[i];
    float m = 0;
    APSP_CUDA_TRY(gpuEventElapsedTime(&m, ev[i], ev[i + 1]));
    const int k = it.batch < 0 ? 0 : 1;
    ms[k] += m;
    ++steps[k];
    if (it.batch < 0) {
      const RoundLists& l = lists_at_[std::size_t(it.round)];
      tiles[0] += double(l.nrows) * l.ncols;
    } else {  // the tiles' rounds (batches_ has them by tile, also for the int16x2 rounds)
      const detail::RoundBatch& b = batches_.host.batches[std::size_t(it.batch)];
      for (std::int64_t r = b.round0; r < b.round0 + b.nrounds; ++r)
        tiles[1] += double(batches_.host.rounds[std::size_t(r)].nrows) *
                    batches_.host.rounds[std::size_t(r)].ncols;
    }
  }
  const double per_tile = double(kTile) * kTile * kTile;
  auto part = [&](int k, const char* what) {
    return std::to_string(steps[k]) + " " + what + " " + std::to_string(ms[k]) + " ms (" +
           std::to_string(std::int64_t(tiles[k])) + " rest tiles, " +
           std::to_string(ms[k] > 0 ? tiles[k] * per_tile / (ms[k] * 1e9) : 0.0) +
           " T updates/s)";
  };
  detail::trace((std::string("cuda: schedule GPU time") + (packed ? " (int16x2)" : "") + ": " +
                 part(0, "rounds alone") + "; " + part(1, "batches"))
                    .c_str());
  return true;
}

template <class T>
bool DeviceFw<T>::rounds(bool use_graph, const ProgressFn& progress,
                         const std::function<bool()>& abandon) {
  if (!use_graph) {
    if (!abandon) return run_schedule(progress, {}, detail::tracing());
    Pacer pace(stream_, true);
    std::int64_t t = 0;
    const bool done = run_schedule(
        progress, [&] { return pace.before_round(t++) && abandon(); }, detail::tracing());
    if (!done) APSP_CUDA_TRY(gpuStreamSynchronize(stream_));
    return done;
  }
  gpuGraphExec_t exec = capture();
  gpuError_t l = gpuGraphLaunch(exec, stream_);
  if (l == gpuSuccess) l = gpuStreamSynchronize(stream_);
  (void)gpuGraphExecDestroy(exec);
  APSP_CUDA_TRY(l);
  if (progress) progress(R_, R_);
  return true;
}

template <class T>
gpuGraphExec_t DeviceFw<T>::capture() {
  gpuGraph_t graph = nullptr;
  APSP_CUDA_TRY(gpuStreamBeginCapture(stream_, gpuStreamCaptureModeThreadLocal));
  try {
    run_schedule(ProgressFn{}, {});
  } catch (...) {
    (void)gpuStreamEndCapture(stream_, &graph);
    if (graph) (void)gpuGraphDestroy(graph);
    throw;
  }
  APSP_CUDA_TRY(gpuStreamEndCapture(stream_, &graph));
  gpuGraphExec_t exec = nullptr;
  const gpuError_t e = gpuGraphInstantiate(&exec, graph, 0);
  (void)gpuGraphDestroy(graph);
  APSP_CUDA_TRY(e);
  return exec;
}

template <class T>
template <class F, class U>
double DeviceFw<T>::download_stripes(F&& consume, const U* dev, std::size_t stripe_bytes) {
  // With set_order() the stripes are the user's rows n_out_ x n_out_, gathered on the device.
  const std::int64_t n = n_out_;
  if (n == 0) return 0;
  const std::int64_t rows_per = std::max<std::int64_t>(
      1, std::min<std::int64_t>(n, std::int64_t(stripe_bytes / (n * sizeof(U)))));
  // Done with earlier copies through the stage (a regrow, for rows longer than a stripe, frees
  // it).
  for (int b = 0; b < 2 && stage_.bytes() > 0; ++b)
    APSP_CUDA_TRY(gpuEventSynchronize(stage_.done(b)));
  stage_.reserve(std::size_t(rows_per) * n * sizeof(U));
  U* stage[2] = {static_cast<U*>(stage_.buffer(0)), static_cast<U*>(stage_.buffer(1))};
  gpuEvent_t done[2] = {stage_.done(0), stage_.done(1)};
  double in_consume = 0;
  const std::int64_t stripes = (n + rows_per - 1) / rows_per;
  // The distances (dev == d_ or null) leave as U: as stored when that is U, else expanded on the
  // device stripe by stripe, from the packed matrix (rounds_packed kept its result) or from
  // int32 rounds into int64 (a checked int32 rung).
  const bool is_dist =
      dev == nullptr || static_cast<const void*>(dev) == static_cast<const void*>(d_.get());
  const bool packed = result_in_s16_ && is_dist;
  const bool expand = packed || (is_dist && !std::is_same_v<U, T>);
  constexpr bool can_expand =
      std::is_same_v<U, int> || (std::is_same_v<U, long> && std::is_same_v<T, int>);
  APSP_EXPECTS(!expand || can_expand, "download_stripes: no expansion to this type");
  APSP_EXPECTS((is_dist || std::is_same_v<U, int>), "download_stripes: next hops are int32");
  const U* src = dev ? dev : reinterpret_cast<const U*>(d_.get());
  DeviceBuffer<U> wide(expand || ordered_ ? std::size_t(rows_per) * n : 0);
  // Gathers time themselves (events around each stripe's kernel): --stats' unpermute.
  TimingEvents gather_time(ordered_);
  auto issue = [&](std::int64_t s) {
    const std::int64_t r0 = s * rows_per, rows = std::min(rows_per, n - r0);
    if (ordered_) {
      gather_time.begin(int(s % 2), stream_);
      gather(wide.get(), src, is_dist, packed, r0, rows);
      gather_time.end(int(s % 2), stream_);
    } else if (expand) {
      if constexpr (can_expand) {
        if (packed)
          launch_expand_rows_s16<U>(d16_.get(), ld16(), r0, rows, n, wide.get(), stream_);
        else
          launch_widen_rows<U>(reinterpret_cast<const int*>(d_.get()), n_pad_, r0, rows, n,
                               wide.get(), stream_);
      }
    }
    if (ordered_ || expand) {
      APSP_CUDA_TRY(gpuMemcpyAsync(stage[s % 2], wide.get(), std::size_t(rows) * n * sizeof(U),
                                   gpuMemcpyDeviceToHost, stream_));
    } else {
      APSP_CUDA_TRY(gpuMemcpy2DAsync(stage[s % 2], n * sizeof(U), src + r0 * n_pad_,
                                     n_pad_ * sizeof(U), n * sizeof(U), rows, gpuMemcpyDeviceToHost,
                                     stream_));
    }
    APSP_CUDA_TRY(gpuEventRecord(done[s % 2], stream_));
  };
  issue(0);
  for (std::int64_t s = 0; s < stripes; ++s) {
    if (s + 1 < stripes) issue(s + 1);  // buffer (s+1)%2 was consumed in iteration s-1
    APSP_CUDA_TRY(gpuEventSynchronize(done[s % 2]));
    gather_ms_ += gather_time.elapsed_ms(int(s % 2));
    const auto t0 = std::chrono::steady_clock::now();
    const std::int64_t r0 = s * rows_per;
    consume(r0, std::min(rows_per, n - r0), static_cast<const U*>(stage[s % 2]));
    in_consume += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }
  return in_consume;
}

template <class T>
template <class U>
void DeviceFw<T>::gather(U* out, const U* src, bool is_dist, bool packed, std::int64_t r0,
                         std::int64_t rows) {
  const int* no = new_of_old_.get();
  const int* on = old_of_new_.get();
  if (packed) {
    if constexpr (std::is_same_v<U, int> || std::is_same_v<U, long>)
      launch_gather_rows<U, unsigned, GatherFrom::Packed>(d16_.get(), ld16(), no, on, r0, rows,
                                                          n_out_, out, stream_);
  } else if (is_dist) {
    if constexpr (std::is_same_v<U, T> || (std::is_same_v<U, long> && std::is_same_v<T, int>))
      launch_gather_rows<U, T, GatherFrom::Values>(d_.get(), n_pad_, no, on, r0, rows, n_out_, out,
                                                   stream_);
  } else {
    if constexpr (std::is_same_v<U, int>)
      launch_gather_rows<int, int, GatherFrom::NextHops>(src, n_pad_, no, on, r0, rows, n_out_, out,
                                                         stream_);
  }
}

}  // namespace
}  // namespace apsp::cuda
