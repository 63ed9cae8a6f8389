#include <prism/analysis.hpp>
#include <prism/errors.hpp>
#include <prism/lines.hpp>

#include "common/parallel.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <iterator>
#include <string>
#include <tuple>
#include <vector>

namespace prism {
namespace {

constexpr index_t kNone = -1;

/// Up to two neighbours of a row, with the strength of each coupling.
struct Neighbours {
  index_t col[2] = {kNone, kNone};
  double strength[2] = {0.0, 0.0};
  int count = 0;

  void add(index_t j, double s) {
    col[count] = j;
    strength[count] = s;
    ++count;
  }
  int find(index_t j) const { return col[0] == j ? 0 : (col[1] == j ? 1 : -1); }
  index_t other(index_t j) const { return col[0] == j ? col[1] : col[0]; }
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
/// >= min_strength and >= dominance times the (k+1)-th. Decided on the values of the
/// three strongest only, so equal strengths are never split by their column order.
/// s_ij = |a_ij| (r_i r_j) with r = inverse_sqrt_diagonal(): the product r_i r_j is the
/// same both ways, so s_ij = s_ji exactly for a symmetric A.
Neighbours choose(const CsrMatrix<double>& a, const std::vector<double>& r, index_t i,
                  const LineOptions& o) {
  double top[3] = {0.0, 0.0, 0.0};
  index_t col[2] = {kNone, kNone};
  for (index_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
    const index_t j = a.col_idx[k];
    if (j == i) continue;
    const double s = std::abs(a.values[k]) * (r[i] * r[j]);
    if (s > top[0]) {
      top[2] = top[1];
      top[1] = top[0];
      col[1] = col[0];
      top[0] = s;
      col[0] = j;
    } else if (s > top[1]) {
      top[2] = top[1];
      top[1] = s;
      col[1] = j;
    } else if (s > top[2]) {
      top[2] = s;
    }
  }
  const auto dominant = [&](double chosen, double next) {
    return chosen > 0.0 && chosen >= o.min_strength && chosen >= o.dominance * next;
  };
  Neighbours out;
  const int k = dominant(top[1], top[2]) ? 2 : (dominant(top[0], top[1]) ? 1 : 0);
  for (int c = 0; c < k; ++c) out.add(col[c], top[c]);
  return out;
}

/// Links: pairs of rows that choose each other, with the weaker of the two strengths
/// (equal for a symmetric matrix). Every row keeps at most two.
std::vector<Neighbours> mutual_links(const std::vector<Neighbours>& chosen) {
  std::vector<Neighbours> links(chosen.size());
  common::parallel_for(chosen.size(), common::kRowsPerPart, [&](std::size_t b, std::size_t e) {
    for (std::size_t i = b; i < e; ++i) {
      for (int c = 0; c < chosen[i].count; ++c) {
        const index_t j = chosen[i].col[c];
        const int back = chosen[j].find(static_cast<index_t>(i));
        if (back >= 0) {
          links[i].add(j, std::min(chosen[i].strength[c], chosen[j].strength[back]));
        }
      }
    }
  });
  return links;
}

double link_strength(const std::vector<Neighbours>& links, index_t u, index_t v) {
  return links[u].strength[links[u].find(v)];
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
void orient_canonically(std::vector<index_t>& chain, const std::vector<Neighbours>& links) {
  const std::size_t m = chain.size();
  for (std::size_t t = 0; t + 1 < m; ++t) {
    const double forward = link_strength(links, chain[t], chain[t + 1]);
    const double backward = link_strength(links, chain[m - 1 - t], chain[m - 2 - t]);
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
void append_chain(std::vector<index_t>& chain, const std::vector<Neighbours>& links,
                  index_t max_length, FlatLines& out) {
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
void walk_chain(index_t first, const std::vector<Neighbours>& links, std::vector<char>& seen,
                std::vector<index_t>& chain) {
  chain.clear();
  for (index_t prev = kNone, cur = first; cur != kNone;) {
    chain.push_back(cur);
    seen[cur] = 1;
    index_t next = kNone;
    for (int c = 0; c < links[cur].count; ++c) {
      if (links[cur].col[c] != prev) next = links[cur].col[c];
    }
    prev = cur;
    cur = next;
  }
}

/// The cycle through `first` as a chain: cut at its weakest link (among exact ties, the
/// one with the smallest row index), read from one side of the cut to the other.
void open_cycle(index_t first, const std::vector<Neighbours>& links, std::vector<char>& seen,
                std::vector<index_t>& chain) {
  chain.assign(1, first);
  seen[first] = 1;
  for (index_t prev = first, cur = links[first].col[0]; cur != first;) {
    chain.push_back(cur);
    seen[cur] = 1;
    const index_t next = links[cur].other(prev);
    prev = cur;
    cur = next;
  }
  const std::size_t m = chain.size();
  std::size_t cut = 0;  // the link from chain[cut] to chain[cut + 1 mod m]
  const auto key = [&](std::size_t t) {
    const index_t u = chain[t], v = chain[(t + 1) % m];
    return std::make_tuple(link_strength(links, u, v), std::min(u, v), std::max(u, v));
  };
  for (std::size_t t = 1; t < m; ++t) {
    if (key(t) < key(cut)) cut = t;
  }
  std::rotate(chain.begin(), chain.begin() + static_cast<std::ptrdiff_t>((cut + 1) % m),
              chain.end());
}

FlatLines trace_lines(const std::vector<Neighbours>& links, index_t max_length) {
  const auto n = static_cast<index_t>(links.size());
  std::vector<char> seen(static_cast<std::size_t>(n), 0);
  FlatLines out;
  out.rows.reserve(static_cast<std::size_t>(n));
  std::vector<index_t> chain;
  for (index_t i = 0; i < n; ++i) {
    if (seen[i] || links[i].count == 2) continue;
    walk_chain(i, links, seen, chain);
    append_chain(chain, links, max_length, out);
  }
  for (index_t i = 0; i < n; ++i) {  // what is left lies on cycles
    if (seen[i]) continue;
    open_cycle(i, links, seen, chain);
    append_chain(chain, links, max_length, out);
  }
  return out;
}

/// Lines ordered by their smallest row, each read from its end with the smaller index.
Lines order_lines(const FlatLines& flat, index_t n) {
  const auto count = static_cast<index_t>(flat.ptr.size()) - 1;
  std::vector<index_t> line_of(static_cast<std::size_t>(n));
  for (index_t l = 0; l < count; ++l) {
    for (index_t t = flat.ptr[l]; t < flat.ptr[l + 1]; ++t) line_of[flat.rows[t]] = l;
  }
  std::vector<char> placed(static_cast<std::size_t>(count), 0);
  Lines out;
  out.permutation.reserve(static_cast<std::size_t>(n));
  for (index_t i = 0; i < n; ++i) {
    const index_t l = line_of[i];
    if (placed[l]) continue;
    placed[l] = 1;
    const auto first = flat.rows.begin() + flat.ptr[l], last = flat.rows.begin() + flat.ptr[l + 1];
    if (*first <= *(last - 1)) {
      out.permutation.insert(out.permutation.end(), first, last);
    } else {
      out.permutation.insert(out.permutation.end(), std::make_reverse_iterator(last),
                             std::make_reverse_iterator(first));
    }
    out.lines.ptr.push_back(static_cast<index_t>(out.permutation.size()));
  }
  return out;
}

/// a(i, j), 0 where not stored.
double entry(const CsrMatrix<double>& a, index_t i, index_t j) {
  const auto first = a.col_idx.begin() + a.row_ptr[i], last = a.col_idx.begin() + a.row_ptr[i + 1];
  const auto it = std::lower_bound(first, last, j);
  return it != last && *it == j ? a.values[it - a.col_idx.begin()] : 0.0;
}

/// line_weight() of A with its rows read in the order `rows` (rows[new] = old).
double consecutive_weight(const CsrMatrix<double>& a, const std::vector<index_t>& rows,
                          const BlockPartition& lines) {
  double total = 0.0, inside = 0.0;
  for (index_t i = 0; i < a.rows; ++i) {
    for (index_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
      if (a.col_idx[k] != i) total += std::abs(a.values[k]);
    }
  }
  for (index_t l = 0; l < lines.count(); ++l) {
    for (index_t t = lines.ptr[l]; t + 1 < lines.ptr[l + 1]; ++t) {
      const index_t u = rows[t], v = rows[t + 1];
      inside += std::abs(entry(a, u, v)) + std::abs(entry(a, v, u));
    }
  }
  return total > 0.0 ? inside / total : 0.0;
}

LineReport make_report(const CsrMatrix<double>& a, const Lines& lines) {
  LineReport r;
  r.lengths = set_stats(lines.lines.ptr);
  for (index_t l = 0; l < lines.lines.count(); ++l) {
    const index_t length = lines.lines.ptr[l + 1] - lines.lines.ptr[l];
    if (length > 1) r.linked_rows += length;
  }
  r.inside_weight = consecutive_weight(a, lines.permutation, lines.lines);
  return r;
}

}  // namespace

Lines find_lines(const CsrMatrix<double>& a, const LineOptions& options) {
  check_options(options);
  require_square(a, "find_lines");
  const std::vector<double> r = inverse_sqrt_diagonal(a);
  std::vector<Neighbours> chosen(static_cast<std::size_t>(a.rows));
  common::parallel_for(chosen.size(), common::kRowsPerPart, [&](std::size_t b, std::size_t e) {
    for (auto i = static_cast<index_t>(b); i < static_cast<index_t>(e); ++i) {
      chosen[i] = choose(a, r, i, options);
    }
  });
  const std::vector<Neighbours> links = mutual_links(chosen);
  Lines out = order_lines(trace_lines(links, options.max_length), a.rows);
  out.report = make_report(a, out);
  return out;
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
