// The default strategy: a portfolio of proposal rules over one shared history and one surrogate model. It starts from
// the configuration nearest every parameter's highest value (first_guess.hpp), then alternates an even initial design
// that keeps away from the lowest corner with refinement steps around the best found so far (together 8 to 16
// configurations, two per parameter that varies; early_steps.hpp); after that, each proposal comes from a rule drawn
// in proportion to how much its recent proposals cut the best time: the model's expected improvement over the space
// (exploration), or the model's best guess among the one- and two-parameter neighbours of the best configurations
// found, each parameter changed once, then each pair of parameters, before any is changed again (refinement around
// the incumbent). A rule that stops paying loses its share to the other; neither is ever starved. Some of the
// exploration share climbs instead from the best configuration of each other combination of the two-valued
// parameters, so that a region the incumbent's cannot reach one step at a time is still refined, and some draw a
// configuration at random among those of a rare edge value (rare_edges.hpp), which the model would seldom ask for.
// Given what other GPUs measured (a prior), the initial design is drawn from what they found fastest and the model
// also splits on their ranking; given search inputs (a kernel's launch: how full its waves keep the GPU), from what
// they favour.
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <map>

#include "design_inputs.hpp"
#include "early_steps.hpp"
#include "first_guess.hpp"
#include "prior_features.hpp"
#include "rare_edges.hpp"
#include "search_state.hpp"
#include "surrogate.hpp"

namespace cutune::detail {
namespace {

// The initial design: this many configurations per parameter that takes more than one value, within these bounds.
// Fewer than 16 lets the model steer sooner in a space of few parameters (pnpoly's four: 8, and with the sweep of
// refine() 15 evaluations to within 5% of the optimum instead of 22); a design of 24 helped no space (bench/RESULTS.md,
// "Search against Kernel Tuner").
constexpr std::size_t kDesignPerParameter = 2;
constexpr std::size_t kMinDesign = 8;
constexpr std::size_t kMaxDesign = 16;
constexpr std::size_t kDesignPool = 48;        // random unasked configurations each initial pick chooses among
constexpr std::uint64_t kSaltMultiplier = 0xD1B54A32D192ED03ull;  // the seed times this: the steps' tie order
// Spaces with at most 3000 unasked configurations score them all; larger ones 2000 random unasked configurations and
// the neighbourhoods of the 10 best.
constexpr ScoredCandidates::Sizes kSizes{3000, 2000, 10};
constexpr std::size_t kRefineCentres = 4;      // the best configurations refinement looks around ...
constexpr std::size_t kPendingPerCentre = 2;   // ... and how many refinements in flight each one gets
constexpr double kPairSweepRatio = 1.2;        // the sweep over pairs skips moves predicted this much slower than the best
constexpr double kDecay = 0.9;                 // weight of a rule's older outcomes, per outcome of that rule
constexpr double kMinShare = 0.15;             // no rule's share of proposals drops below this
constexpr double kPriorGain = 0.03;            // a rule's gain per proposal before it has any (log time)
constexpr double kElsewhereShare = 0.15;       // of the exploration proposals, those that climb elsewhere
// Of the other exploration proposals, those drawn at random from the configurations that take a rare edge value (a
// parameter's lowest or highest level, taken by fewer configurations than one in the initial design's size).
constexpr double kRareEdgeShare = 0.15;
constexpr std::uint16_t kFavouriteShare = 8;   // with a prior, the design draws from other GPUs' fastest eighth ...
constexpr std::size_t kFavouriteTries = 16;    // ... in this many draws, else from the whole space
// What is ready (compiled already) is preferred among candidates rated about as well as the rule's pick: expected
// improvement at least this share of the best candidate's, or a predicted time at most this much slower (log time);
// at most kReadyChecks candidates are looked up per proposal.
constexpr double kReadyScoreShare = 0.5;
constexpr double kReadyLogSlack = 0.05;
constexpr std::size_t kReadyChecks = 32;
// Proposals that may wait for their outcomes at once after the initial design (ahead()). With a lookahead of twice
// the compile threads, a 16-core machine asks 34 configurations before hearing any outcome and a 32-core one all 60
// of a --budget 60 run, and the best found at that budget is slower the more wait (replays of the recorded spaces,
// bench/RESULTS.md, "How far ahead of the search"). 16 tunes ten bf16 shapes cold as fast as twice the compile
// threads on the 16-core H200 machine (19.7 s against 19.7 s); 8 costs 2.8 s.
constexpr std::size_t kAhead = 16;

// kRules: the rules that earn their share; kElsewhere and kRareEdge take fixed parts of exploration's.
enum Rule : std::uint8_t { kExplore = 0, kRefine = 1, kRules = 2, kElsewhere = 3, kRareEdge = 4, kNone = 0xff };

class PortfolioStrategy final : public SearchStrategy {
 public:
  PortfolioStrategy(const Space& space, std::uint64_t seed, const Prior& prior, const SearchInputs& inputs)
      : SearchStrategy(space, seed), design_size_(design_size(index_)), step_salt_(seed * kSaltMultiplier),
        rule_of_(index_.size(), kNone) {
    for (std::size_t p = 0; p < index_.dimensions(); ++p)
      if (index_.levels(p) == 2) two_valued_.push_back(p);
    const auto columns = prior_columns(index_, prior, seed);
    model_.add_columns(index_, columns);
    favourites_ = prior_favourites(index_, columns, kPriorLevels / kFavouriteShare);
    favoured_ = favoured_by(inputs, index_.size());
    rare_edges_ = rare_edges(index_, static_cast<double>(index_.size()) / static_cast<double>(design_size_));
  }

  void prefer_ready(std::function<bool(std::size_t)> ready) override { ready_ = std::move(ready); }

  // The initial design's points are drawn whatever the outcomes (its refinement steps give way to design points
  // while nothing is told); after it, kAhead.
  std::size_t ahead() const override {
    const std::size_t asked = history_.size() - history_.unasked_count();
    return (asked < design_size_ ? design_size_ - asked : 0) + kAhead;
  }

  // Alternately what refinement and exploration would take next under the model as last fitted: the best
  // configuration's one-parameter neighbours predicted fastest, and the candidates of highest expected improvement.
  // Nothing before the model's first fit (the design is drawn as it is asked).
  std::vector<std::size_t> upcoming(std::size_t n) const override {
    std::vector<std::size_t> out;
    if (model_.fitted() == 0 || !history_.best() || n == 0) return out;
    std::vector<std::pair<double, std::uint32_t>> promising, near;
    for (std::size_t k = 0; k < scored_.size(); ++k)
      if (!history_.asked(scored_.config(k))) promising.emplace_back(-scored_.score(k), scored_.config(k));
    std::vector<std::uint32_t> neighbours;
    index_.hamming_neighbours(*history_.best(), neighbours);
    for (std::uint32_t c : neighbours) {
      if (history_.asked(c)) continue;
      double mean = 0.0, stddev = 0.0;
      model_.predict(c, mean, stddev);
      near.emplace_back(mean, c);
    }
    std::sort(promising.begin(), promising.end());
    std::sort(near.begin(), near.end());
    for (std::size_t k = 0; out.size() < n && (k < near.size() || k < promising.size()); ++k) {
      for (const auto* list : {&near, &promising}) {
        if (k >= list->size() || out.size() >= n) continue;
        const std::size_t c = (*list)[k].second;
        if (std::find(out.begin(), out.end(), c) == out.end()) out.push_back(c);
      }
    }
    return out;
  }

  std::vector<std::size_t> ask(std::size_t n) override {
    std::vector<std::size_t> out;
    while (out.size() < n && history_.unasked_count() > 0) {
      const std::size_t asked = history_.size() - history_.unasked_count();
      if (asked < design_size_ || !history_.best()) {
        const auto step = asked % 2 == 0 ? design_step() : std::nullopt;
        take(step ? *step : design_point(), out);
        if (step) rule_of_[*step] = kRefine, ++refining_;
        continue;
      }
      if (model_.stale(history_)) {
        model_.fit(history_, rng_);
        scored_.rank(model_, index_, history_, rng_, kSizes);
      }
      if (out.empty()) scored_.discount_pending(model_, history_);
      Rule rule = draw_rule();
      std::optional<std::size_t> pick = propose(rule);
      if (!pick) rule = rule == kExplore ? kRefine : kExplore, pick = propose(rule);
      if (!pick) scored_.rank(model_, index_, history_, rng_, kSizes), pick = propose(kExplore);
      if (!pick) pick = history_.random_unasked(rng_);
      take(*pick, out);
      rule_of_[*pick] = rule;
      if (rule == kRefine) ++refining_;
      scored_.add_pending(model_, *pick);
    }
    return out;
  }

 private:
  void on_told(std::size_t index) override {
    const double value = log_time(history_.value(index));
    const double gain = std::isfinite(best_log_) && value < best_log_ ? best_log_ - value : 0.0;
    if (value < best_log_) best_log_ = value;
    const auto rule = static_cast<Rule>(rule_of_[index]);
    if (rule == kNone || rule == kElsewhere || rule == kRareEdge) return;
    if (rule == kRefine) --refining_;
    // A rule earns what its proposal cut off the best time (in log time): a rule that keeps finding slightly better
    // configurations in a mediocre region earns less than one that jumps to a much better region.
    gains_[rule] = kDecay * gains_[rule] + gain;
    tries_[rule] = kDecay * tries_[rule] + 1.0;
  }

  // A rule drawn in proportion to its recent gain per proposal, each share at least kMinShare; in a space with
  // two-valued parameters, kElsewhereShare of exploration's share climbs elsewhere instead, and in a space with rare
  // edge values kRareEdgeShare of the rest draws one of those.
  Rule draw_rule() {
    std::array<double, kRules> rate{};
    double total = 0.0;
    for (std::size_t r = 0; r < kRules; ++r) total += rate[r] = (gains_[r] + kPriorGain) / (tries_[r] + 1.0);
    const double refine_share = std::clamp(rate[kRefine] / total, kMinShare, 1.0 - kMinShare);
    if (rng_.chance(refine_share)) return kRefine;
    if (!two_valued_.empty() && rng_.chance(kElsewhereShare)) return kElsewhere;
    if (!rare_edges_.empty() && rng_.chance(kRareEdgeShare)) return kRareEdge;
    return kExplore;
  }

  std::optional<std::size_t> propose(Rule rule) {
    if (rule == kElsewhere)
      if (const auto pick = climb_elsewhere()) return pick;
    if (rule == kRareEdge)
      if (const auto pick = rare_edge_draw()) return pick;
    return rule == kExplore ? explore() : refine();
  }

  // The unasked candidate of highest expected improvement, discounted by likeness to pending configurations (with
  // what is ready preferred among those nearly as promising).
  std::optional<std::size_t> explore() {
    const auto i = scored_.best(history_);
    if (!i) return std::nullopt;
    if (ready_) {
      const double floor = kReadyScoreShare * scored_.score(*i);
      ranked_.clear();
      for (std::size_t k = 0; k < scored_.size(); ++k) {
        const double score = scored_.score(k);
        if (!history_.asked(scored_.config(k)) && score >= floor) ranked_.emplace_back(-score, scored_.config(k));
      }
      if (const auto pick = best_ready(ranked_, -floor, ready_, kReadyChecks)) return *pick;
    }
    return scored_.config(*i);
  }

  // Around the best few configurations (the best first), a greedy step that trusts the model locally, where it has
  // data: first a sweep over the parameters, the one-parameter neighbour the model predicts fastest among those that
  // change a parameter no neighbour asked so far changes (a parameter of many levels that the model finds flat, such
  // as a block size, would otherwise take every step while a parameter of few values that matters waits: pnpoly);
  // then a sweep over the pairs of parameters (untried_pair_step()); after that the fastest-predicted of the one- and
  // two-parameter neighbours together. With refinements in flight (a batch, several GPUs), every kPendingPerCentre of
  // them move on to the next of those configurations, so that four in flight look around the best and the second best
  // instead of piling onto the best's neighbourhood, where an improvement found by one makes the others moot
  // (bench/RESULTS.md, "Search against Kernel Tuner": batch 4 on convolution A4000 took 101.5 evaluations where one
  // at a time took 77, and 88.5 with this; one per centre, 83, but 121 on gemm RTX 2080 Ti).
  std::optional<std::size_t> refine() {
    std::vector<std::uint32_t> centres = fastest_told(history_, kRefineCentres);
    if (!centres.empty()) {
      const auto first = static_cast<std::ptrdiff_t>((refining_ / kPendingPerCentre) % centres.size());
      std::rotate(centres.begin(), centres.begin() + first, centres.end());
    }
    for (std::uint32_t centre : centres) {
      scratch_.clear();
      index_.hamming_neighbours(centre, scratch_);
      if (const auto pick = untried_parameter_step(centre, scratch_)) return pick;
      // Two-parameter moves, which constraints often make the only way from one good configuration to a better one
      // (on gemm RTX 2080 Ti, from the 1.06 plateau: a thread-block dimension and the vector width that must divide
      // its tile; each alone is slower), ranked with the one-parameter moves left as soon as every parameter was
      // changed once: gemm RTX 2080 Ti needs 87 evaluations (median of 200 seeds) instead of 98.5 when they wait for
      // all of those.
      fill_ring();
      if (const auto pick = untried_pair_step(centre, ring_)) return pick;
      if (const auto pick = fastest_unasked(ring_, centre)) return pick;
    }
    return std::nullopt;
  }

  // The unasked one-parameter neighbour of `centre` (of `near`, all of them) that the model predicts fastest among
  // those changing a parameter that no asked neighbour (told or pending) changes; nullopt when there is none.
  std::optional<std::size_t> untried_parameter_step(std::size_t centre, const std::vector<std::uint32_t>& near) {
    const auto here = index_.code(centre);
    tried_.assign(index_.dimensions(), 0);
    changed_.clear();
    for (std::uint32_t c : near) {
      const auto code = index_.code(c);
      const auto p = static_cast<std::size_t>(std::mismatch(code.begin(), code.end(), here.begin()).first -
                                              code.begin());
      changed_.push_back(static_cast<std::uint16_t>(p));
      if (history_.asked(c)) tried_[p] = 1;
    }
    untried_.clear();
    for (std::size_t k = 0; k < near.size(); ++k)
      if (!tried_[changed_[k]]) untried_.push_back(near[k]);
    return fastest_unasked(untried_, centre);
  }

  // A refinement step (as refine() takes, without the sweep over pairs) around the best configuration found with
  // another combination of the two-valued parameters than the best's, staying within that combination; the
  // combinations take turns, in the order of their best. On convolution A100 the runs that miss sit at 1.47 of the
  // optimum without shared memory and read-only loads, where switching either alone is slower, and the optimum lies
  // with both: exploration rarely lands there at a configuration good enough to show it, and refinement around the
  // incumbent never gets there; climbing in each combination does. Evaluations to within 5% over 600 seeds: 132.5
  // (geometric mean 137.8) instead of 161 (147.6) with the pair sweep alone, 149 (144.2) before both; a share of 0.3
  // instead of 0.15 gave 132 (129.6) there but cost gemm RTX 2080 Ti (76 instead of 73, 200 seeds) and convolution
  // A6000 (a geometric mean of 77.2 instead of 70.0).
  std::optional<std::size_t> climb_elsewhere() {
    combination_best_.clear();
    std::vector<std::uint16_t> key(two_valued_.size());
    auto key_of = [&](std::size_t c) {
      const auto code = index_.code(c);
      for (std::size_t k = 0; k < two_valued_.size(); ++k) key[k] = code[two_valued_[k]];
    };
    for (std::uint32_t c : history_.told_order()) {
      if (!std::isfinite(history_.value(c))) continue;
      key_of(c);
      const auto [it, fresh] = combination_best_.try_emplace(key, c);
      if (!fresh && history_.value(c) < history_.value(it->second)) it->second = c;
    }
    key_of(*history_.best());
    std::vector<std::uint32_t> centres;
    for (const auto& [combination, c] : combination_best_)
      if (combination != key) centres.push_back(c);
    if (centres.empty()) return std::nullopt;
    std::sort(centres.begin(), centres.end(), [this](std::uint32_t a, std::uint32_t b) {
      return history_.value(a) < history_.value(b) || (history_.value(a) == history_.value(b) && a < b);
    });
    const std::size_t first = elsewhere_turn_++ % centres.size();
    for (std::size_t t = 0; t < centres.size(); ++t) {
      const std::uint32_t centre = centres[(first + t) % centres.size()];
      const auto here = index_.code(centre);
      auto elsewhere = [&](std::uint32_t c) {
        const auto code = index_.code(c);
        for (std::size_t p : two_valued_)
          if (code[p] != here[p]) return true;
        return false;
      };
      scratch_.clear();
      index_.hamming_neighbours(centre, scratch_);
      std::erase_if(scratch_, elsewhere);
      if (const auto pick = untried_parameter_step(centre, scratch_)) return pick;
      fill_ring();
      std::erase_if(ring_, elsewhere);
      if (const auto pick = fastest_unasked(ring_, centre)) return pick;
    }
    return std::nullopt;
  }

  // An unasked configuration drawn at random from those of a rare edge value drawn at random (rare_edges_), or nullopt
  // when kFavouriteTries draws found only asked ones. The model cannot find these: where a parameter's extreme is
  // valid only with one value of another, a uniform draw over the configurations (the initial design, the candidates
  // exploration scores in a large space) seldom lands there, and the few that do, in an unlucky context, teach it
  // that the value is slow. A needle there, where the optimum needs the edge value together with other settings that
  // are slower elsewhere, is then found by chance alone: drawing the edge value first and the configuration within
  // it gives every such value as many proposals as any other, whatever its share of the space. On a space built so
  // (tests/search/rare_edge_test.cpp) 11 of 20 seeds get within 5% of the optimum by 300 evaluations instead of 4;
  // on the recorded spaces, bench/RESULTS.md ("Needles at a rare edge").
  std::optional<std::size_t> rare_edge_draw() {
    const RareEdge& edge = rare_edges_[rng_.below(rare_edges_.size())];
    for (std::size_t tries = 0; tries < kFavouriteTries; ++tries) {
      const std::uint32_t c = edge.configs[rng_.below(edge.configs.size())];
      if (!history_.asked(c)) return c;
    }
    return std::nullopt;
  }

  // Of the two-parameter neighbours of `centre` in `ring`, the unasked one the model predicts fastest among those
  // changing a pair of parameters that no asked one changes, if the model predicts it at most kPairSweepRatio slower
  // than the best; nullopt when there is none. Ranking all two-parameter moves by the prediction alone kept trying the
  // same pairs at other values (on gemm RTX 2080 Ti, those with a parameter whose values are all about as fast, or
  // with one the model likes), while the way off the 1.06 plateau changes a pair of its own (MDIMC 32 -> 16 with VWN
  // 2 -> 4): 68 evaluations to within 5% (median of 200 seeds) instead of 87. The ratio spares moves the model finds
  // much slower, such as turning off shared memory on convolution A100 (geometric mean over 600 seeds 147.6 with it,
  // 154.8 without, 144.2 without the pair sweep).
  std::optional<std::size_t> untried_pair_step(std::size_t centre, const std::vector<std::uint32_t>& ring) {
    const auto here = index_.code(centre);
    const std::size_t d = index_.dimensions();
    pair_tried_.assign(d * d, 0);
    pair_of_.clear();
    for (std::uint32_t c : ring) {
      const auto code = index_.code(c);
      std::size_t first = d, second = d;
      for (std::size_t p = 0; p < d; ++p)
        if (code[p] != here[p]) (first == d ? first : second) = p;
      const std::size_t pair = first == d || second == d ? d * d : first * d + second;  // d * d: not two changes
      pair_of_.push_back(static_cast<std::uint32_t>(pair));
      if (pair < d * d && history_.asked(c)) pair_tried_[pair] = 1;
    }
    const double slowest = best_log_ + std::log(kPairSweepRatio);
    std::optional<std::size_t> best;
    double best_mean = 0.0;
    for (std::size_t k = 0; k < ring.size(); ++k) {
      const std::uint32_t c = ring[k];
      if (pair_of_[k] == d * d || pair_tried_[pair_of_[k]] || history_.asked(c)) continue;
      double mean = 0.0, stddev = 0.0;
      model_.predict(c, mean, stddev);
      if (!(mean < slowest)) continue;
      if (!best || mean < best_mean || (mean == best_mean && c < *best)) best = c, best_mean = mean;
    }
    return best;
  }

  // ring_: the configurations of scratch_ (a centre's one-parameter neighbours) and their own one-parameter
  // neighbours: the centre's one- and two-parameter neighbourhood.
  void fill_ring() {
    ring_.assign(scratch_.begin(), scratch_.end());
    for (std::uint32_t near : scratch_) index_.hamming_neighbours(near, ring_);
  }

  // The unasked configuration of `among` that the model predicts fastest (or a ready one predicted nearly as fast),
  // or nullopt when all were asked. Of those it cannot tell apart, the one that moves fewest levels from `centre`,
  // then a seeded draw (step_order()): early on, when the model has split on few parameters, a refinement step then
  // moves a value to the next one rather than to the lowest-numbered configuration's, and every parameter's
  // one-level move is as likely to come first (a parameter of many levels is not favoured, nor an early one).
  std::optional<std::size_t> fastest_unasked(const std::vector<std::uint32_t>& among, std::size_t centre) {
    std::optional<std::size_t> best;
    double best_mean = 0.0;
    StepOrder best_order;
    ranked_.clear();
    for (std::uint32_t c : among) {
      if (history_.asked(c)) continue;
      double mean = 0.0, stddev = 0.0;
      model_.predict(c, mean, stddev);
      if (ready_) ranked_.emplace_back(mean, c);
      const StepOrder order = step_order(index_, c, centre, step_salt_);
      if (!best || mean < best_mean || (mean == best_mean && order < best_order))
        best = c, best_mean = mean, best_order = order;
    }
    if (best && ready_) {
      if (const auto pick = best_ready(ranked_, best_mean + kReadyLogSlack, ready_, kReadyChecks)) return *pick;
    }
    return best;
  }

  // Every other configuration of the initial design, once an outcome is in: a refinement step around the best found so
  // far (refine(), the model fitted to what is told), so that a good first guess or an early lucky draw is built on at
  // once instead of after the design. nullopt before any outcome succeeded, or when refinement finds nothing.
  std::optional<std::size_t> design_step() {
    if (!history_.best()) return std::nullopt;
    if (model_.stale(history_)) model_.fit(history_, rng_);
    return refine();
  }

  // The next configuration of the initial design: of a pool of random unasked ones, the one farthest (in level
  // positions scaled to [0, 1] per parameter) from everything asked and from the lowest corner
  // (farthest_from_asked_and_lowest()), so that the first outcomes cover the space more evenly than independent
  // draws do, without spending them where GPU kernels are slow.
  std::size_t design_point() {
    if (history_.size() - history_.unasked_count() == 0 && favourites_.empty()) {
      const std::uint32_t first = highest_corner(index_, favoured_);
      if (!history_.asked(first)) return first;
    }
    pool_.clear();
    for (std::size_t k = 0; k < kDesignPool; ++k) pool_.push_back(design_candidate());
    return farthest_from_asked_and_lowest(index_, pool_, history_.told_order(), history_.pending());
  }

  // A random unasked configuration for the initial design; with a prior, one that another GPU ranks among its fastest
  // (favourites_), while some are left: the first outcomes then cover the region where other GPUs found their best,
  // where this GPU's optimum lay for 9 of the 10 pairs of recorded GPUs (bench/RESULTS.md), and the model learns
  // early how far the other GPUs' ranking holds here. Then, with search inputs, one they favour (favoured_): for a
  // kernel, a launch whose waves keep at least the median share of the GPU's block slots busy, or 90%: within 5% of
  // the tensor-core GEMM's optimum at 1000^3 within 60 evaluations in 78% of seeds instead of 59% (bench/RESULTS.md,
  // "The launch's waves, narrowed").
  std::size_t design_candidate() {
    for (const auto* pool : {&favourites_, &favoured_}) {
      for (std::size_t tries = 0; tries < kFavouriteTries && !pool->empty(); ++tries) {
        const std::uint32_t c = (*pool)[rng_.below(pool->size())];
        if (!history_.asked(c)) return c;
      }
    }
    return *history_.random_unasked(rng_);
  }

  // How many configurations the initial design has in this space.
  static std::size_t design_size(const SpaceIndex& index) {
    std::size_t varying = 0;
    for (std::size_t p = 0; p < index.dimensions(); ++p) varying += index.levels(p) > 1;
    return std::clamp(kDesignPerParameter * varying, kMinDesign, kMaxDesign);
  }

  std::size_t design_size_;
  std::uint64_t step_salt_;             // the seeded draw that orders refinement steps the model predicts alike
  std::vector<std::size_t> pool_;       // design_point() scratch
  Surrogate model_{index_};
  std::vector<std::uint32_t> favourites_;  // with a prior: what other GPUs rank among their fastest eighth
  std::vector<std::uint32_t> favoured_;    // what the search inputs favour (favoured_by()); empty without inputs
  ScoredCandidates scored_;
  std::vector<std::uint32_t> ring_;    // two-parameter neighbourhood scratch
  // untried_parameter_step() scratch: per parameter, whether an asked neighbour changes it; per neighbour, the
  // parameter it changes; the neighbours that change an untried one.
  std::vector<std::uint8_t> tried_;
  std::vector<std::uint16_t> changed_;
  std::vector<std::uint32_t> untried_;
  std::function<bool(std::size_t)> ready_;  // what costs little to evaluate (prefer_ready); empty: no preference
  std::vector<std::pair<double, std::uint32_t>> ranked_;  // candidates rated about as well as a rule's pick
  // untried_pair_step() scratch: per pair of parameters (row-major), whether an asked neighbour changes both; per
  // neighbour, the pair it changes.
  std::vector<std::uint8_t> pair_tried_;
  std::vector<std::uint32_t> pair_of_;
  std::vector<std::size_t> two_valued_;  // the parameters of two values
  std::vector<RareEdge> rare_edges_;     // the edge values fewer configurations take than the design has
  std::map<std::vector<std::uint16_t>, std::uint32_t> combination_best_;  // climb_elsewhere() scratch
  std::size_t elsewhere_turn_ = 0;       // climb_elsewhere() calls so far
  std::vector<std::uint8_t> rule_of_;  // the rule that proposed each configuration; kNone: design, observed, random
  std::size_t refining_ = 0;           // refinement proposals not yet told
  double best_log_ = std::numeric_limits<double>::infinity();  // log time of the best outcome so far
  std::array<double, kRules> gains_{};
  std::array<double, kRules> tries_{};
};

}  // namespace

std::unique_ptr<Strategy> make_portfolio_strategy(const Space& space, std::uint64_t seed, const Prior& prior,
                                                  const SearchInputs& inputs) {
  return std::make_unique<PortfolioStrategy>(space, seed, prior, inputs);
}

}  // namespace cutune::detail
