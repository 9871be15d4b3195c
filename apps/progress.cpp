// apps/progress.cpp — the CLI's progress line on stderr (apps/commands.hpp Progress): stages and
// rounds (or the metrics' work) with the time left, shown on a terminal once a run lasts
// APSP_PROGRESS_DELAY seconds or always with --progress; a stop signal ends an open status line
// before the shell's prompt. Inside a stage, solve()'s own stages (apsp::StageFn: order, build,
// rounds, factor, rows, ...) come through phase() too, each with its time.
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <mutex>
#include <string>
#include <thread>

#include "apsp/config.hpp"
#include "apsp/text.hpp"
#include "commands.hpp"

namespace apsp_cli {

namespace {
using Clock = std::chrono::steady_clock;
double since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

/// A status line is open on the terminal (no newline after it yet): a stop signal ends it first,
/// so the shell's prompt does not land on it.
std::atomic<bool> g_line_open{false};
struct sigaction g_prev_action[NSIG];

void end_line_then_stop(int sig) {
  if (g_line_open.exchange(false)) {
    const char nl = '\n';
    (void)!::write(2, &nl, 1);
  }
  const struct sigaction& p = g_prev_action[sig];
  if (p.sa_handler != SIG_DFL && p.sa_handler != SIG_IGN) {
    p.sa_handler(sig);  // the stop handler: removes the temporary files, dies of the signal
    return;
  }
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

/// Puts end_line_then_stop in front of what handles the terminal's stop signals now.
void chain_line_end() {
  static std::once_flag once;
  std::call_once(once, [] {
    for (const int sig : {SIGINT, SIGQUIT, SIGTERM, SIGHUP}) {
      struct sigaction old {};
      if (::sigaction(sig, nullptr, &old) != 0 || (old.sa_flags & SA_SIGINFO) ||
          old.sa_handler == SIG_IGN)
        continue;
      g_prev_action[sig] = old;
      struct sigaction sa = old;
      sa.sa_handler = end_line_then_stop;
      ::sigaction(sig, &sa, nullptr);
    }
  });
}

std::string seconds_text(double s) {
  char b[48];
  if (s < 10)
    std::snprintf(b, sizeof b, "%.2f s", s);
  else if (s < 120)
    std::snprintf(b, sizeof b, "%.0f s", s);
  else
    std::snprintf(b, sizeof b, "%d min %02d s", int(s) / 60, int(s) % 60);
  return b;
}

/// solve()'s stages (apsp::StageFn) and what the progress line says while one runs and after.
struct SubStage {
  const char* name;
  const char* ing;
  const char* done;
};
constexpr SubStage kSubStages[] = {
    {"reweight", "reweighting (Johnson's potentials)", "reweighted (Johnson's potentials)"},
    {"order", "ordering the vertices", "ordered the vertices"},
    {"build", "building the matrix", "built the matrix"},
    {"rounds", "running the rounds", "ran the rounds"},
    {"unpermute", "putting the rows back in the input's order",
     "put the rows back in the input's order"},
    {"factor", "factoring (sparse direct engine)", "factored"},
    {"rows", "computing the rows", "computed the rows"},
    {"paths", "finding the next hops", "found the next hops"},
};
const SubStage* sub_stage(std::string_view name) {
  for (const SubStage& st : kSubStages)
    if (name == st.name) return &st;
  return nullptr;
}
}  // namespace

struct Progress::State {
  bool enabled = false, tty = false;
  double delay = 1;
  Clock::time_point t0 = Clock::now(), phase_t0 = t0, first_round_t = t0, done_t = t0,
                    last_draw = t0;
  std::string phase;              // the stage now running, "" for none
  const SubStage* sub = nullptr;  // solve()'s stage inside it, null for none
  Clock::time_point sub_t0 = t0;
  std::int64_t done = 0, total = 0, first_done = -1;
  int last_tenth = -1;
  bool shown = false;              // the terminal shows progress (the delay has passed)
  std::size_t line_len = 0;        // length of the status line open on the terminal, 0 for none
  std::vector<std::string> ended;  // stages that ended before anything was shown
  std::mutex m;
  std::condition_variable cv;
  bool stop = false;
  std::thread ticker;

  std::string status() const {
    const double t = since(sub ? sub_t0 : phase_t0);
    char b[160];
    if (total > 0 && (phase.empty() || phase == "solve" || phase == "metrics")) {
      std::string left;
      if (first_done >= 0 && done > first_done && done < total) {
        // The pace of the rounds done so far, less the time the current one has run.
        const double per = std::chrono::duration<double>(done_t - first_round_t).count() /
                           double(done - first_done);
        left = ", about " +
               seconds_text(std::max(0.0, per * double(total - done) - since(done_t))) + " left";
      }
      // metrics count sources, rounds or vertices decided (docs/metrics.md): no unit named
      std::snprintf(b, sizeof b, "apsp: %s %lld/%lld (%3.0f%%), %s%s",
                    sub && sub->name == std::string_view("rows") ? "row"
                    : !sub && phase == "metrics"                 ? "metrics"
                                                                 : "round",
                    (long long)done, (long long)total, 100.0 * double(done) / double(total),
                    seconds_text(t).c_str(), left.c_str());
      return b;
    }
    const char* ing = sub                  ? sub->ing
                      : phase == "read"    ? "reading the input"
                      : phase == "solve"   ? "solving"
                      : phase == "metrics" ? "computing the metrics"
                      : phase == "write"   ? "writing the output"
                      : phase == "verify"  ? "verifying"
                                           : "working";
    std::snprintf(b, sizeof b, "apsp: %s, %s", ing, seconds_text(t).c_str());
    return b;
  }
  void put(const std::string& text) {
    std::fputs(text.c_str(), stderr);
    std::fflush(stderr);
  }
  /// Redraws the status line in place (terminal).
  void draw() {
    const std::string text = status();
    std::string out = "\r" + text;
    if (line_len > text.size()) out.append(line_len - text.size(), ' ');
    line_len = text.size();
    g_line_open = true;
    put(out);
    last_draw = Clock::now();
  }
  /// A whole line: over the status line on a terminal.
  void line(const std::string& text) {
    std::string out = line_len ? "\r" + text : text;
    if (line_len > text.size()) out.append(line_len - text.size(), ' ');
    line_len = 0;
    g_line_open = false;
    put(out + "\n");
  }
  bool due() const { return !tty || since(t0) >= delay; }
  /// A line for a stage that ended: kept until progress shows (the delay), else written.
  void ended_line(const std::string& l) {
    if (!due()) {
      ended.push_back(l);
      return;
    }
    show();
    line(l);
  }
  void reset_counts() {
    done = total = 0;
    first_done = -1;
    last_tenth = -1;
  }
  /// Ends solve()'s stage now running, if any: its line, with the rounds or rows it counted.
  void end_sub() {
    if (!sub) return;
    std::string l = std::string("apsp: ") + sub->done + " in " + seconds_text(since(sub_t0));
    if (total > 0 && sub->name == std::string_view("rows"))
      l += " (" + apsp::io::count_of(total, "row", "rows") + ")";
    else if (total > 0)
      l += " (" + apsp::io::count_of(total, "round", "rounds") + ")";
    ended_line(l);
    sub = nullptr;
    reset_counts();
  }
  void show() {
    if (shown) return;
    shown = true;
    for (const std::string& l : ended) line(l);
    ended.clear();
  }
  void tick() {
    std::unique_lock lock(m);
    while (!cv.wait_for(lock, std::chrono::milliseconds(250), [this] { return stop; }))
      if (!phase.empty() && due()) {
        show();
        draw();
      }
  }
};

Progress::Progress(bool enabled, bool force) : s_(std::make_unique<State>()) {
  s_->tty = isatty(2) == 1;
  s_->enabled = enabled && (s_->tty || force);
  s_->delay = apsp::config::get_double(apsp::config::Knob::ProgressDelay);
  if (s_->enabled && s_->tty) {
    chain_line_end();
    s_->ticker = std::thread([st = s_.get()] { st->tick(); });
  }
}

Progress::~Progress() { finish(); }

void Progress::operator()(std::int64_t done, std::int64_t total) {
  State& s = *s_;
  if (!s.enabled || total <= 0) return;
  const std::lock_guard lock(s.m);
  if (s.first_done < 0 || done < s.first_done) {
    s.first_done = done;
    s.first_round_t = Clock::now();
  }
  if (done != s.done) s.done_t = Clock::now();
  s.done = done;
  s.total = total;
  if (!s.due()) return;
  if (s.tty) {
    s.show();
    if (done == total || since(s.last_draw) >= 0.1) s.draw();
    if (done == total && s.phase.empty()) s.line(s.status());  // a run without stages
    return;
  }
  const int tenth = int(10 * done / total);
  if (tenth != s.last_tenth) {
    s.last_tenth = tenth;
    s.line(s.status());
  }
}

void Progress::phase(const char* name) {
  State& s = *s_;
  if (!s.enabled) return;
  const std::lock_guard lock(s.m);
  if (name[0] == '\0') {  // solve()'s stage ended, none next (StageFn "")
    s.end_sub();
    return;
  }
  if (const SubStage* sub = sub_stage(name)) {  // solve()'s stage: inside the one running
    if (sub == s.sub) return;                   // entered again (auto trying sn, then nd)
    s.end_sub();
    s.sub = sub;
    s.sub_t0 = Clock::now();
    return;
  }
  s.end_sub();
  if (!s.phase.empty()) {
    const std::string& p = s.phase;
    std::string l = std::string("apsp: ") +
                    (p == "read"      ? "read the input in "
                     : p == "solve"   ? "solved in "
                     : p == "metrics" ? "computed the metrics in "
                     : p == "write"   ? "wrote the output in "
                     : p == "verify"  ? "verified in "
                                      : (p + " took ").c_str()) +
                    seconds_text(since(s.phase_t0));
    if (p == "solve" && s.total > 0)
      l += " (" + apsp::io::count_of(s.total, "round", "rounds") + ")";
    s.ended_line(l);
  }
  s.phase = std::string_view(name) == "done" ? "" : name;
  s.phase_t0 = Clock::now();
  s.reset_counts();
  if (s.phase.empty() && s.shown) s.line("apsp: done in " + seconds_text(since(s.t0)));
}

void Progress::warn(const std::string& text) {
  State& s = *s_;
  const std::lock_guard lock(s.m);
  if (s.line_len) {
    s.put("\n");
    s.line_len = 0;
  }
  s.put("apsp: warning: " + text + "\n");
  g_line_open = false;
  if (s.shown && !s.phase.empty()) s.draw();
}

void Progress::finish() {
  State& s = *s_;
  {
    const std::lock_guard lock(s.m);
    s.stop = true;
    if (s.line_len) {  // ends an open status line (an error may come next)
      s.put("\n");
      s.line_len = 0;
      g_line_open = false;
    }
  }
  s.cv.notify_all();
  if (s.ticker.joinable()) s.ticker.join();
}

}  // namespace apsp_cli
