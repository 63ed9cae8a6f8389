#include <prism/analysis.hpp>
#include <prism/errors.hpp>
#include <prism/lines.hpp>

#include "analysis/line_links.hpp"
#include "common/parallel.hpp"
#include "common/setup_steps.hpp"
#include "kernels/choice_scans.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <iterator>
#include <string>
#include <tuple>
#include <vector>

namespace prism {
namespace {

constexpr index_t kNone = analysis::kNoLink;

/// Items of the fixed-size parts whose partial sums are added in part order, so that a
/// sum does not depend on the number of threads.
constexpr std::size_t kPart = common::kRowsPerPart;

/// body(part, begin, end) for each part of kPart items of [0, n), on the host threads.
template <typename Body>
void for_each_part(std::size_t n, const Body& body) {
  const std::size_t parts = (n + kPart - 1) / kPart;
  common::parallel_for(parts, 1, [&](std::size_t first, std::size_t last) {
    for (std::size_t p = first; p < last; ++p) body(p, p * kPart, std::min(n, (p + 1) * kPart));
  });
}

/// Up to two neighbours a row chose, the stronger first.
struct Neighbours {
  index_t col[2] = {kNone, kNone};
  int count = 0;

  void add(index_t j) { col[count++] = j; }
  bool has(index_t j) const { return col[0] == j || col[1] == j; }
};

/// a(i, j), 0 where not stored.
double entry(const CsrMatrix<double>& a, index_t i, index_t j) {
  const auto first = a.col_idx.begin() + a.row_ptr[i], last = a.col_idx.begin() + a.row_ptr[i + 1];
  const auto it = std::lower_bound(first, last, j);
  return it != last && *it == j ? a.values[it - a.col_idx.begin()] : 0.0;
}

/// The mutual links (two a row, kNone after the last) and the link strengths that the cuts
/// need, the latter computed again from A where asked for (few are: long chains, cycles).
class LinkGraph {
 public:
  LinkGraph(const CsrMatrix<double>& a, const std::vector<index_t>& links) : a_(a), links_(links) {}
  index_t rows() const { return a_.rows; }
  int count(index_t i) const {
    return (links_[2 * i] != kNone ? 1 : 0) + (links_[2 * i + 1] != kNone ? 1 : 0);
  }
  index_t col(index_t i, int c) const { return links_[2 * i + c]; }
  index_t other(index_t i, index_t j) const { return col(i, 0) == j ? col(i, 1) : col(i, 0); }
  /// The weaker of s_uv and s_vu, each in choose()'s operations (r_u r_v = r_v r_u exactly).
  double strength(index_t u, index_t v) const {
    const double r = inverse_sqrt(u) * inverse_sqrt(v);
    return std::min(std::abs(entry(a_, u, v)) * r, std::abs(entry(a_, v, u)) * r);
  }

 private:
  double inverse_sqrt(index_t i) const { return 1.0 / std::sqrt(entry(a_, i, i)); }
  const CsrMatrix<double>& a_;
  const std::vector<index_t>& links_;
};

void check_options(const LineOptions& o) {
  if (!(o.dominance > 1.0) || !std::isfinite(o.dominance)) {
    throw ConfigError("find_lines: dominance must be finite and > 1, got " +
                      std::to_string(o.dominance));
  }
  if (!(o.min_strength >= 0.0 && o.min_strength < 1.0)) {
    throw ConfigError("find_lines: min_strength must be in [0, 1), got " +
                      std::to_string(o.min_strength));
  }
  if (o.max_length < 1) {
    throw ConfigError("find_lines: max_length must be >= 1, got " + std::to_string(o.max_length));
  }
}

void require_square(const CsrMatrix<double>& a, const char* who) {
  if (a.rows != a.cols) {
    throw InvalidMatrixError(std::string(who) + ": the matrix is " + std::to_string(a.rows) +
                             " x " + std::to_string(a.cols) + ", not square");
  }
}

/// 1 / sqrt(a_ii), every diagonal entry positive and finite (the strengths divide by it).
/// In parallel parts; where several rows are bad, the message names the lowest, as a scan
/// in row order would.
std::vector<double> inverse_sqrt_diagonal(const CsrMatrix<double>& a) {
  std::vector<double> d(static_cast<std::size_t>(a.rows), 0.0);
  std::atomic<index_t> first_bad{a.rows};
  const auto invert = [&](std::size_t begin, std::size_t end) {
    for (auto i = static_cast<index_t>(begin); i < static_cast<index_t>(end); ++i) {
      if (first_bad.load(std::memory_order_relaxed) < i) return;
      // As diagonal(): the entry in column i, found by its sorted columns; 0 where absent.
      const auto first = a.col_idx.begin() + a.row_ptr[i];
      const auto last = a.col_idx.begin() + a.row_ptr[i + 1];
      const auto it = std::lower_bound(first, last, i);
      if (it != last && *it == i) d[i] = a.values[it - a.col_idx.begin()];
      if (!(d[i] > 0.0) || !std::isfinite(d[i])) {
        index_t seen = first_bad.load();
        while (i < seen && !first_bad.compare_exchange_weak(seen, i)) {
        }
        return;  // d[i] keeps the bad entry for the message
      }
      d[i] = 1.0 / std::sqrt(d[i]);
    }
  };
  common::parallel_for(static_cast<std::size_t>(a.rows), common::kRowsPerPart, invert);
  const index_t bad = first_bad.load();
  if (bad < a.rows) {
    throw InvalidMatrixError("find_lines: row " + std::to_string(bad) + " has diagonal " +
                             std::to_string(d[bad]) + "; lines need a positive diagonal");
  }
  return d;
}

/// Row i's chosen couplings: its k <= 2 strongest, k the largest for which the k-th is
/// >= min_strength and >= dominance times the (k+1)-th (kernels::reference::choose_links,
/// which the device's choice equals). s_ij = |a_ij| (r_i r_j) with r =
/// inverse_sqrt_diagonal(): the product r_i r_j is the same both ways, so s_ij = s_ji
/// exactly for a symmetric A.
Neighbours choose(const CsrMatrix<double>& a, const std::vector<double>& r, index_t i,
                  const LineOptions& o) {
  const kernels::CsrView<double> view{a.rows, a.cols, a.row_ptr.data(), a.col_idx.data(),
                                      a.values.data()};
  index_t col[2];
  const int k =
      kernels::reference::choose_links(view, r.data(), i, o.dominance, o.min_strength, col);
  Neighbours out;
  for (int c = 0; c < k; ++c) out.add(col[c]);
  return out;
}

/// Links: pairs of rows that choose each other, two entries a row (kNone after the last),
/// in the order of the row's choice. Every row keeps at most two.
std::vector<index_t> mutual_links(const std::vector<Neighbours>& chosen) {
  std::vector<index_t> links(2 * chosen.size(), kNone);
  common::parallel_for(chosen.size(), common::kRowsPerPart, [&](std::size_t b, std::size_t e) {
    for (std::size_t i = b; i < e; ++i) {
      std::size_t slot = 2 * i;
      for (int c = 0; c < chosen[i].count; ++c) {
        const index_t j = chosen[i].col[c];
        if (chosen[j].has(static_cast<index_t>(i))) links[slot++] = j;
      }
    }
  });
  return links;
}

/// Sizes of `pieces` nearly equal pieces of a chain of `length` rows, the longer ones
/// placed symmetrically from both ends where the counts allow, so that the cuts do not
/// depend on which end the chain is read from.
std::vector<index_t> piece_sizes(index_t length, index_t pieces) {
  std::vector<index_t> sizes(static_cast<std::size_t>(pieces), length / pieces);
  index_t extra = length % pieces;
  if (extra % 2 == 1 && pieces % 2 == 1) {
    ++sizes[pieces / 2];
    --extra;
  }
  for (index_t p = 0; extra >= 2; ++p, extra -= 2) {
    ++sizes[p];
    ++sizes[pieces - 1 - p];
  }
  if (extra == 1) ++sizes[pieces / 2 - 1];  // pieces even, an odd remainder: no symmetry
  return sizes;
}

/// Reverses `chain` unless it already starts from its canonical end: the end from which
/// the link strengths read lexicographically smaller, or, where they read the same both
/// ways, the end with the smaller row index.
void orient_canonically(std::vector<index_t>& chain, const LinkGraph& links) {
  const std::size_t m = chain.size();
  for (std::size_t t = 0; t + 1 < m; ++t) {
    const double forward = links.strength(chain[t], chain[t + 1]);
    const double backward = links.strength(chain[m - 1 - t], chain[m - 2 - t]);
    if (forward != backward) {
      if (backward < forward) std::reverse(chain.begin(), chain.end());
      return;
    }
  }
  if (chain.back() < chain.front()) std::reverse(chain.begin(), chain.end());
}

/// Rows of the lines, line by line (flat), before the final ordering.
struct FlatLines {
  std::vector<index_t> rows;
  std::vector<index_t> ptr{0};
};

/// Appends a chain, cut into pieces of at most max_length rows.
void append_chain(std::vector<index_t>& chain, const LinkGraph& links, index_t max_length,
                  FlatLines& out) {
  const auto length = static_cast<index_t>(chain.size());
  if (length <= max_length) {  // one piece (most chains: no allocation)
    out.rows.insert(out.rows.end(), chain.begin(), chain.end());
    out.ptr.push_back(static_cast<index_t>(out.rows.size()));
    return;
  }
  orient_canonically(chain, links);
  const index_t pieces = length / max_length + (length % max_length != 0 ? 1 : 0);
  index_t start = 0;
  for (const index_t size : piece_sizes(length, pieces)) {
    out.rows.insert(out.rows.end(), chain.begin() + start, chain.begin() + start + size);
    out.ptr.push_back(static_cast<index_t>(out.rows.size()));
    start += size;
  }
}

/// The rows of the chain from `first` (a row with at most one link) to its other end.
void walk_chain(index_t first, const LinkGraph& links, std::vector<index_t>& chain) {
  chain.clear();
  for (index_t prev = kNone, cur = first; cur != kNone;) {
    chain.push_back(cur);
    index_t next = kNone;
    for (int c = 0; c < links.count(cur); ++c) {
      if (links.col(cur, c) != prev) next = links.col(cur, c);
    }
    prev = cur;
    cur = next;
  }
}

/// The cycle through `first` as a chain: cut at its weakest link (among exact ties, the
/// one with the smallest row index), read from one side of the cut to the other.
void open_cycle(index_t first, const LinkGraph& links, std::vector<char>& seen,
                std::vector<index_t>& chain) {
  chain.assign(1, first);
  seen[first] = 1;
  for (index_t prev = first, cur = links.col(first, 0); cur != first;) {
    chain.push_back(cur);
    seen[cur] = 1;
    const index_t next = links.other(cur, prev);
    prev = cur;
    cur = next;
  }
  const std::size_t m = chain.size();
  std::size_t cut = 0;  // the link from chain[cut] to chain[cut + 1 mod m]
  const auto key = [&](std::size_t t) {
    const index_t u = chain[t], v = chain[(t + 1) % m];
    return std::make_tuple(links.strength(u, v), std::min(u, v), std::max(u, v));
  };
  for (std::size_t t = 1; t < m; ++t) {
    if (key(t) < key(cut)) cut = t;
  }
  std::rotate(chain.begin(), chain.begin() + static_cast<std::ptrdiff_t>((cut + 1) % m),
              chain.end());
}

/// The chains whose end with the smaller row lies in rows [begin, end), cut, their rows
/// marked seen. A chain's rows come out the same whichever end it is read from
/// (append_chain orients long chains, order_lines every piece), so the parts may take
/// their chains in any order.
FlatLines trace_chains(const LinkGraph& links, index_t max_length, index_t begin, index_t end,
                       std::vector<char>& seen) {
  FlatLines out;
  out.rows.reserve(static_cast<std::size_t>(end - begin));
  std::vector<index_t> chain;
  for (index_t i = begin; i < end; ++i) {
    const int count = links.count(i);
    if (count == 2) continue;
    if (count == 0) {  // most rows of most matrices: a line of its own
      seen[i] = 1;
      out.rows.push_back(i);
      out.ptr.push_back(static_cast<index_t>(out.rows.size()));
      continue;
    }
    walk_chain(i, links, chain);
    if (chain.back() < i) continue;  // the part of the other end takes it
    for (const index_t row : chain) seen[row] = 1;
    append_chain(chain, links, max_length, out);
  }
  return out;
}

/// The chains (on the host threads, each walked from both ends) and then the cycles, cut
/// into lines; the lines in no particular order.
FlatLines trace_lines(const LinkGraph& links, index_t max_length) {
  const auto n = static_cast<std::size_t>(links.rows());
  std::vector<char> seen(n, 0);
  std::vector<FlatLines> parts((n + kPart - 1) / kPart);
  for_each_part(n, [&](std::size_t p, std::size_t b, std::size_t e) {
    parts[p] =
        trace_chains(links, max_length, static_cast<index_t>(b), static_cast<index_t>(e), seen);
  });
  FlatLines cycles;
  std::vector<index_t> chain;
  for (std::size_t i = 0; i < n; ++i) {  // what is left lies on cycles
    if (seen[i]) continue;
    open_cycle(static_cast<index_t>(i), links, seen, chain);
    append_chain(chain, links, max_length, cycles);
  }
  parts.push_back(std::move(cycles));
  // One flat list: each part copied after the parts before it.
  std::vector<std::size_t> rows_before(parts.size() + 1, 0), lines_before(parts.size() + 1, 0);
  for (std::size_t p = 0; p < parts.size(); ++p) {
    rows_before[p + 1] = rows_before[p] + parts[p].rows.size();
    lines_before[p + 1] = lines_before[p] + parts[p].ptr.size() - 1;
  }
  FlatLines out;
  out.rows.resize(rows_before.back());
  out.ptr.resize(lines_before.back() + 1, 0);
  common::parallel_for(parts.size(), 1, [&](std::size_t first, std::size_t last) {
    for (std::size_t p = first; p < last; ++p) {
      std::copy(parts[p].rows.begin(), parts[p].rows.end(), out.rows.begin() + rows_before[p]);
      const auto offset = static_cast<index_t>(rows_before[p]);
      for (std::size_t l = 1; l < parts[p].ptr.size(); ++l) {
        out.ptr[lines_before[p] + l] = offset + parts[p].ptr[l];
      }
    }
  });
  return out;
}

/// Lines ordered by their smallest row, each read from its end with the smaller index. On
/// the host threads: each line marks its smallest row, the parts of the rows count the lines
/// and rows they head, and each part then places its lines after those of the parts before.
Lines order_lines(const FlatLines& flat, index_t n) {
  const auto count = static_cast<index_t>(flat.ptr.size()) - 1;
  std::vector<index_t> head(static_cast<std::size_t>(n), kNone);  // the line of its smallest row
  common::parallel_for(static_cast<std::size_t>(count), common::kRowsPerPart / 64,
                       [&](std::size_t b, std::size_t e) {
                         for (std::size_t l = b; l < e; ++l) {
                           head[*std::min_element(flat.rows.begin() + flat.ptr[l],
                                                  flat.rows.begin() + flat.ptr[l + 1])] =
                               static_cast<index_t>(l);
                         }
                       });
  const std::size_t parts = (static_cast<std::size_t>(n) + kPart - 1) / kPart;
  std::vector<index_t> lines_before(parts + 1, 0), rows_before(parts + 1, 0);
  for_each_part(static_cast<std::size_t>(n), [&](std::size_t p, std::size_t b, std::size_t e) {
    for (std::size_t i = b; i < e; ++i) {
      if (head[i] == kNone) continue;
      ++lines_before[p + 1];
      rows_before[p + 1] += flat.ptr[head[i] + 1] - flat.ptr[head[i]];
    }
  });
  for (std::size_t p = 0; p < parts; ++p) {
    lines_before[p + 1] += lines_before[p];
    rows_before[p + 1] += rows_before[p];
  }
  Lines out;
  out.permutation.resize(static_cast<std::size_t>(n));
  out.lines.ptr.resize(static_cast<std::size_t>(count) + 1);
  for_each_part(static_cast<std::size_t>(n), [&](std::size_t p, std::size_t b, std::size_t e) {
    index_t line = lines_before[p], row = rows_before[p];
    for (std::size_t i = b; i < e; ++i) {
      if (head[i] == kNone) continue;
      const index_t l = head[i];
      const auto first = flat.rows.begin() + flat.ptr[l],
                 last = flat.rows.begin() + flat.ptr[l + 1];
      const auto to = out.permutation.begin() + row;
      if (*first <= *(last - 1)) {
        std::copy(first, last, to);
      } else {
        std::reverse_copy(first, last, to);
      }
      row += flat.ptr[l + 1] - flat.ptr[l];
      out.lines.ptr[++line] = row;
    }
  });
  return out;
}

/// line_weight() of A with its rows read in the order `rows` (rows[new] = old), `lines`
/// fitting A. Sums over fixed parts of the rows (the off-diagonal weight) and of the
/// positions (the pairs inside a line), added in part order: the same for any threads.
double consecutive_weight(const CsrMatrix<double>& a, const std::vector<index_t>& rows,
                          const BlockPartition& lines) {
  const auto n = static_cast<std::size_t>(a.rows);
  const std::size_t parts = (n + kPart - 1) / kPart;
  std::vector<double> total(parts, 0.0), inside(parts, 0.0);
  for_each_part(n, [&](std::size_t p, std::size_t b, std::size_t e) {
    double sum = 0.0;
    for (auto i = static_cast<index_t>(b); i < static_cast<index_t>(e); ++i) {
      for (index_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
        sum += a.col_idx[k] != i ? std::abs(a.values[k]) : 0.0;  // no branch; + 0 exact
      }
    }
    total[p] = sum;
    // The line holding position b, then position t and t + 1 together where t + 1 is in it.
    auto l = static_cast<index_t>(
        std::upper_bound(lines.ptr.begin(), lines.ptr.end(), static_cast<index_t>(b)) -
        lines.ptr.begin() - 1);
    sum = 0.0;
    for (auto t = static_cast<index_t>(b); t < static_cast<index_t>(e); ++t) {
      while (lines.ptr[l + 1] <= t) ++l;
      if (t + 1 >= lines.ptr[l + 1]) continue;
      const index_t u = rows[t], v = rows[t + 1];
      sum += std::abs(entry(a, u, v)) + std::abs(entry(a, v, u));
    }
    inside[p] = sum;
  });
  double all = 0.0, in = 0.0;
  for (std::size_t p = 0; p < parts; ++p) {
    all += total[p];
    in += inside[p];
  }
  return all > 0.0 ? in / all : 0.0;
}

LineReport make_report(const CsrMatrix<double>& a, const Lines& lines) {
  LineReport r;
  r.lengths = set_stats(lines.lines.ptr);
  const auto count = static_cast<std::size_t>(lines.lines.count());
  std::vector<index_t> linked((count + kPart - 1) / kPart, 0);
  for_each_part(count, [&](std::size_t p, std::size_t b, std::size_t e) {
    for (std::size_t l = b; l < e; ++l) {
      const index_t length = lines.lines.ptr[l + 1] - lines.lines.ptr[l];
      if (length > 1) linked[p] += length;
    }
  });
  for (const index_t rows : linked) r.linked_rows += rows;
  r.inside_weight = consecutive_weight(a, lines.permutation, lines.lines);
  return r;
}

}  // namespace

namespace analysis {

Lines lines_from_links(const CsrMatrix<double>& a, const std::vector<index_t>& links,
                       index_t max_length) {
  const LinkGraph graph(a, links);
  FlatLines flat;
  {
    const common::StepTimer step("lines: chains");
    flat = trace_lines(graph, max_length);
  }
  const common::StepTimer step("lines: order, report");
  Lines out = order_lines(flat, a.rows);
  out.report = make_report(a, out);
  return out;
}

}  // namespace analysis

Lines find_lines(const CsrMatrix<double>& a, const LineOptions& options) {
  check_options(options);
  require_square(a, "find_lines");
  std::vector<index_t> links;
  {
    const common::StepTimer step("lines: choices, links");
    const std::vector<double> r = inverse_sqrt_diagonal(a);
    std::vector<Neighbours> chosen(static_cast<std::size_t>(a.rows));
    common::parallel_for(chosen.size(), common::kRowsPerPart, [&](std::size_t b, std::size_t e) {
      for (auto i = static_cast<index_t>(b); i < static_cast<index_t>(e); ++i) {
        chosen[i] = choose(a, r, i, options);
      }
    });
    links = mutual_links(chosen);
  }
  return analysis::lines_from_links(a, links, options.max_length);
}

index_t rows_choosing_links(const CsrMatrix<double>& a, const LineOptions& options) {
  check_options(options);
  require_square(a, "find_lines");
  const std::vector<double> r = inverse_sqrt_diagonal(a);
  std::atomic<index_t> choosing{0};
  common::parallel_for(static_cast<std::size_t>(a.rows), common::kRowsPerPart,
                       [&](std::size_t b, std::size_t e) {
                         index_t count = 0;
                         for (auto i = static_cast<index_t>(b); i < static_cast<index_t>(e); ++i) {
                           count += choose(a, r, i, options).count > 0 ? 1 : 0;
                         }
                         choosing += count;
                       });
  return choosing.load();
}

double line_weight(const CsrMatrix<double>& a, const BlockPartition& lines) {
  require_square(a, "line_weight");
  bool valid = !lines.ptr.empty() && lines.ptr.front() == 0 && lines.rows() == a.rows;
  for (std::size_t b = 1; valid && b < lines.ptr.size(); ++b)
    valid = lines.ptr[b] > lines.ptr[b - 1];
  if (!valid) {
    throw InvalidMatrixError(
        "line_weight: the lines do not partition the matrix's rows into "
        "consecutive, non-empty runs");
  }
  std::vector<index_t> identity(static_cast<std::size_t>(a.rows));
  for (index_t i = 0; i < a.rows; ++i) identity[i] = i;
  return consecutive_weight(a, identity, lines);
}

}  // namespace prism
