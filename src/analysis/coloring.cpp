#include <prism/analysis.hpp>
#include <prism/errors.hpp>

#include "analysis/color_order.hpp"

#include <boost/graph/compressed_sparse_row_graph.hpp>
#include <boost/graph/sequential_vertex_coloring.hpp>
#include <boost/graph/smallest_last_ordering.hpp>
#include <boost/property_map/property_map.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

namespace prism {
namespace {

// A directed CSR graph holding both arcs of every undirected edge is the cheapest
// Boost graph for greedy coloring: adjacent_vertices() then yields all neighbours,
// and at 1.5M vertices it needs a fraction of the memory of adjacency_list<undirectedS>,
// which keeps every edge as a node of a std::list. 32-bit indices suffice because
// index_t caps the number of stored entries at 2^31 - 1.
using Graph =
    boost::compressed_sparse_row_graph<boost::directedS, boost::no_property, boost::no_property,
                                       boost::no_property, std::uint32_t, std::uint32_t>;
using Vertex = boost::graph_traits<Graph>::vertex_descriptor;

// The arcs (i, j), j != i, of a CSR pattern (offsets ptr, columns col) in row order: the
// input of the CSR graph's sorted-edges constructor, read in one pass without a copy.
template <typename Offset>
class ArcIterator {
 public:
  using iterator_category = std::input_iterator_tag;
  using value_type = std::pair<Vertex, Vertex>;
  using difference_type = std::ptrdiff_t;
  using pointer = const value_type*;
  using reference = const value_type&;

  ArcIterator(const Offset* ptr, const index_t* col, index_t rows, index_t row)
      : ptr_(ptr), col_(col), rows_(rows), row_(row), k_(row < rows ? ptr[row] : 0) {
    settle();
  }
  reference operator*() const { return arc_; }
  pointer operator->() const { return &arc_; }
  ArcIterator& operator++() {
    ++k_;
    settle();
    return *this;
  }
  bool operator==(const ArcIterator& o) const { return row_ == o.row_ && k_ == o.k_; }
  bool operator!=(const ArcIterator& o) const { return !(*this == o); }

 private:
  // Moves to the next off-diagonal entry at or after (row_, k_); past the end: (rows, 0).
  void settle() {
    while (row_ < rows_) {
      for (; k_ < ptr_[row_ + 1]; ++k_) {
        if (col_[k_] != row_) {
          arc_ = {static_cast<Vertex>(row_), static_cast<Vertex>(col_[k_])};
          return;
        }
      }
      if (++row_ < rows_) k_ = ptr_[row_];
    }
    k_ = 0;
  }
  const Offset* ptr_;
  const index_t* col_;
  index_t rows_, row_;
  Offset k_;
  value_type arc_{};
};

template <typename Offset>
Graph graph_of(const Offset* ptr, const index_t* col, index_t n, std::size_t arcs) {
  return Graph(boost::edges_are_sorted, ArcIterator<Offset>(ptr, col, n, 0),
               ArcIterator<Offset>(ptr, col, n, n), static_cast<Vertex>(n), arcs);
}

// Whether every row's columns increase strictly and every entry (i, j) has its mirror
// (j, i): then A's own pattern, less the diagonal, is the adjacency of A + A^T. Scanning
// rows in order meets the entries (j, i) of each row j in increasing i, so one cursor per
// row checks every mirror in a single pass (as mirror_entries does). Counts the diagonal
// entries on the way.
bool pattern_is_symmetric(const CsrMatrix<double>& a, std::size_t& diagonal) {
  const index_t n = a.rows;
  diagonal = 0;
  std::vector<index_t> next(a.row_ptr.begin(), a.row_ptr.end() - 1);
  for (index_t i = 0; i < n; ++i) {
    for (index_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
      const index_t j = a.col_idx[k];
      if (j < 0 || j >= n || (k > a.row_ptr[i] && a.col_idx[k - 1] >= j)) return false;
      const index_t m = next[j];
      if (m >= a.row_ptr[j + 1] || a.col_idx[m] != i) return false;
      next[j] = m + 1;
      if (j == i) ++diagonal;
    }
  }
  return true;
}

// The adjacency graph of A + A^T without self loops, each arc once, sources sorted. A
// symmetric pattern (every matrix Solver::setup accepts) is read as it is; any other is
// symmetrised first. The arc count is passed on, so the graph's storage is allocated once.
Graph adjacency_graph(const CsrMatrix<double>& a) {
  const index_t n = a.rows;
  std::size_t diagonal = 0;
  if (pattern_is_symmetric(a, diagonal)) {
    return graph_of(a.row_ptr.data(), a.col_idx.data(), n, a.col_idx.size() - diagonal);
  }
  // Twice the off-diagonal count may pass 2^31 - 1, so offsets are size_t.
  std::vector<std::size_t> ptr(static_cast<std::size_t>(n) + 1, 0);
  for (index_t i = 0; i < n; ++i) {
    for (index_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
      const index_t j = a.col_idx[k];
      if (j == i) continue;
      ++ptr[i + 1];
      ++ptr[j + 1];
    }
  }
  std::partial_sum(ptr.begin(), ptr.end(), ptr.begin());
  std::vector<index_t> adj(ptr[n]);
  std::vector<std::size_t> fill(ptr.begin(), ptr.end() - 1);
  for (index_t i = 0; i < n; ++i) {
    for (index_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
      const index_t j = a.col_idx[k];
      if (j == i) continue;
      adj[fill[i]++] = j;
      adj[fill[j]++] = i;
    }
  }
  // Sort and deduplicate every row, compacting the rows in place.
  std::size_t out = 0;
  for (index_t i = 0; i < n; ++i) {
    const auto begin = adj.begin() + static_cast<std::ptrdiff_t>(ptr[i]);
    const auto end = adj.begin() + static_cast<std::ptrdiff_t>(ptr[i + 1]);
    std::sort(begin, end);
    const auto last = std::unique(begin, end);
    ptr[i] = out;
    out = static_cast<std::size_t>(
        std::copy(begin, last, adj.begin() + static_cast<std::ptrdiff_t>(out)) - adj.begin());
  }
  ptr[n] = out;
  return graph_of(ptr.data(), adj.data(), n, out);
}

std::vector<Vertex> vertex_order(const Graph& g, VertexOrder order) {
  const auto n = static_cast<std::size_t>(boost::num_vertices(g));
  std::vector<Vertex> result(n);
  switch (order) {
    case VertexOrder::natural:
      std::iota(result.begin(), result.end(), Vertex{0});
      break;
    case VertexOrder::largest_first: {
      // Counting sort by decreasing degree; stable, so ties keep index order.
      std::vector<std::size_t> degree(n);
      std::size_t max_degree = 0;
      for (std::size_t v = 0; v < n; ++v) {
        degree[v] = boost::out_degree(static_cast<Vertex>(v), g);
        max_degree = std::max(max_degree, degree[v]);
      }
      std::vector<std::size_t> start(max_degree + 2, 0);
      for (std::size_t v = 0; v < n; ++v) ++start[max_degree - degree[v] + 1];
      std::partial_sum(start.begin(), start.end(), start.begin());
      for (std::size_t v = 0; v < n; ++v) {
        result[start[max_degree - degree[v]]++] = static_cast<Vertex>(v);
      }
      break;
    }
    case VertexOrder::smallest_last: {
      // The two-argument overload needs shared_array_property_map.hpp, which the
      // Boost 1.74 header forgets to include, and a degree type equal to size_t; own
      // maps avoid both.
      std::vector<std::size_t> degree(n);
      std::vector<std::size_t> marker(n);
      const auto index = boost::get(boost::vertex_index, g);
      boost::smallest_last_vertex_ordering(
          g, boost::make_iterator_property_map(result.begin(), boost::identity_property_map()),
          boost::make_iterator_property_map(degree.begin(), index),
          boost::make_iterator_property_map(marker.begin(), index));
      break;
    }
  }
  return result;
}

}  // namespace

Coloring color_matrix(const CsrMatrix<double>& a, VertexOrder order) {
  if (a.rows != a.cols) {
    throw InvalidMatrixError("cannot color a matrix that is not square (" + std::to_string(a.rows) +
                             " x " + std::to_string(a.cols) + ")");
  }
  const index_t n = a.rows;
  Coloring result;
  result.color_ptr.assign(1, 0);
  if (n == 0) return result;

  const Graph g = adjacency_graph(a);
  const std::vector<Vertex> visit = vertex_order(g, order);
  std::vector<Vertex> greedy(static_cast<std::size_t>(n));
  const auto num_colors = static_cast<int>(boost::sequential_vertex_coloring(
      g, boost::make_iterator_property_map(visit.begin(), boost::identity_property_map()),
      boost::make_iterator_property_map(greedy.begin(), boost::get(boost::vertex_index, g))));

  result.num_colors = num_colors;
  result.color.assign(greedy.begin(), greedy.end());
  analysis::renumber_colors_by_size(result);
  return result;
}

namespace analysis {

std::vector<index_t> greedy_rank(const CsrMatrix<double>& a, VertexOrder order) {
  if (order == VertexOrder::natural || a.rows == 0) return {};
  const std::vector<Vertex> visit = vertex_order(adjacency_graph(a), order);
  std::vector<index_t> rank(visit.size());
  for (std::size_t p = 0; p < visit.size(); ++p) rank[visit[p]] = static_cast<index_t>(p);
  return rank;
}

}  // namespace analysis

bool is_valid_coloring(const CsrMatrix<double>& a, const std::vector<int>& color) {
  if (color.size() != static_cast<std::size_t>(a.rows) || a.rows != a.cols) return false;
  for (index_t i = 0; i < a.rows; ++i) {
    if (color[i] < 0) return false;
    for (index_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
      const index_t j = a.col_idx[k];
      if (j != i && color[j] == color[i]) return false;
    }
  }
  return true;
}

}  // namespace prism
