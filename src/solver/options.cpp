#include <prism/options.hpp>
#include <prism/report.hpp>

#include <utility>

namespace prism {

template <>
const std::vector<std::pair<BackendKind, std::string_view>>& enum_names<BackendKind>() {
  static const std::vector<std::pair<BackendKind, std::string_view>> names{
      {BackendKind::automatic, "auto"}, {BackendKind::cpu, "cpu"}, {BackendKind::cuda, "cuda"}};
  return names;
}

template <>
const std::vector<std::pair<CpuKernels, std::string_view>>& enum_names<CpuKernels>() {
  static const std::vector<std::pair<CpuKernels, std::string_view>> names{
      {CpuKernels::threaded, "threaded"}, {CpuKernels::reference, "reference"}};
  return names;
}

template <>
const std::vector<std::pair<Ordering, std::string_view>>& enum_names<Ordering>() {
  static const std::vector<std::pair<Ordering, std::string_view>> names{
      {Ordering::automatic, "auto"}, {Ordering::natural, "natural"}, {Ordering::color, "color"}};
  return names;
}

Ordering resolved_ordering(const PreconditionerOptions& options) {
  if (options.ordering != Ordering::automatic) return options.ordering;
  const std::string& t = options.type;
  return t == "ic0" || t == "block_ic" || t == "auto" ? Ordering::color : Ordering::natural;
}

template <>
const std::vector<std::pair<ColoringMethod, std::string_view>>& enum_names<ColoringMethod>() {
  static const std::vector<std::pair<ColoringMethod, std::string_view>> names{
      {ColoringMethod::greedy, "greedy"},
      {ColoringMethod::level_cyclic, "level_cyclic"},
      {ColoringMethod::jones_plassmann, "jones_plassmann"},
      {ColoringMethod::parallel_greedy, "parallel_greedy"},
      {ColoringMethod::automatic, "auto"}};
  return names;
}

template <>
const std::vector<std::pair<VertexOrder, std::string_view>>& enum_names<VertexOrder>() {
  static const std::vector<std::pair<VertexOrder, std::string_view>> names{
      {VertexOrder::natural, "natural"},
      {VertexOrder::largest_first, "largest_first"},
      {VertexOrder::smallest_last, "smallest_last"}};
  return names;
}

template <>
const std::vector<std::pair<TrisolveAlgorithm, std::string_view>>& enum_names<TrisolveAlgorithm>() {
  static const std::vector<std::pair<TrisolveAlgorithm, std::string_view>> names{
      {TrisolveAlgorithm::automatic, "auto"},
      {TrisolveAlgorithm::reference, "reference"},
      {TrisolveAlgorithm::cusparse, "cusparse"},
      {TrisolveAlgorithm::colorset, "colorset"}};
  return names;
}

template <>
const std::vector<std::pair<SpmvAlgorithm, std::string_view>>& enum_names<SpmvAlgorithm>() {
  static const std::vector<std::pair<SpmvAlgorithm, std::string_view>> names{
      {SpmvAlgorithm::automatic, "auto"},
      {SpmvAlgorithm::cusparse, "cusparse"},
      {SpmvAlgorithm::csr_vector, "csr_vector"},
      {SpmvAlgorithm::sell, "sell"},
      {SpmvAlgorithm::bsr, "bsr"}};
  return names;
}

template <>
const std::vector<std::pair<ColorsetLayout, std::string_view>>& enum_names<ColorsetLayout>() {
  static const std::vector<std::pair<ColorsetLayout, std::string_view>> names{
      {ColorsetLayout::automatic, "auto"},
      {ColorsetLayout::csr, "csr"},
      {ColorsetLayout::sell, "sell"}};
  return names;
}

template <>
const std::vector<std::pair<Ic0Factorization, std::string_view>>& enum_names<Ic0Factorization>() {
  static const std::vector<std::pair<Ic0Factorization, std::string_view>> names{
      {Ic0Factorization::automatic, "auto"},
      {Ic0Factorization::host, "host"},
      {Ic0Factorization::backend, "backend"}};
  return names;
}

template <>
const std::vector<std::pair<MatrixCheck, std::string_view>>& enum_names<MatrixCheck>() {
  static const std::vector<std::pair<MatrixCheck, std::string_view>> names{
      {MatrixCheck::full, "full"}, {MatrixCheck::pattern, "pattern"}, {MatrixCheck::none, "none"}};
  return names;
}

template <>
const std::vector<std::pair<BlockIcSolve, std::string_view>>& enum_names<BlockIcSolve>() {
  static const std::vector<std::pair<BlockIcSolve, std::string_view>> names{
      {BlockIcSolve::inverted, "inverted"}, {BlockIcSolve::trsv, "trsv"}};
  return names;
}

template <>
const std::vector<std::pair<Precision, std::string_view>>& enum_names<Precision>() {
  static const std::vector<std::pair<Precision, std::string_view>> names{
      {Precision::fp64, "double"}, {Precision::mixed, "mixed"}};
  return names;
}

template <>
const std::vector<std::pair<GraphMode, std::string_view>>& enum_names<GraphMode>() {
  static const std::vector<std::pair<GraphMode, std::string_view>> names{
      {GraphMode::automatic, "auto"},
      {GraphMode::on, "on"},
      {GraphMode::loop, "loop"},
      {GraphMode::off, "off"}};
  return names;
}

template <>
const std::vector<std::pair<TimingMode, std::string_view>>& enum_names<TimingMode>() {
  static const std::vector<std::pair<TimingMode, std::string_view>> names{
      {TimingMode::phases, "phases"}, {TimingMode::total, "total"}};
  return names;
}

template <>
const std::vector<std::pair<SetupSite, std::string_view>>& enum_names<SetupSite>() {
  static const std::vector<std::pair<SetupSite, std::string_view>> names{
      {SetupSite::automatic, "auto"}, {SetupSite::host, "host"}};
  return names;
}

template <>
const std::vector<std::pair<CgVariant, std::string_view>>& enum_names<CgVariant>() {
  static const std::vector<std::pair<CgVariant, std::string_view>> names{
      {CgVariant::automatic, "auto"},
      {CgVariant::classic, "classic"},
      {CgVariant::single_reduction, "single_reduction"}};
  return names;
}

template <>
const std::vector<std::pair<DistributedTransport, std::string_view>>&
enum_names<DistributedTransport>() {
  static const std::vector<std::pair<DistributedTransport, std::string_view>> names{
      {DistributedTransport::automatic, "auto"},
      {DistributedTransport::mpi, "mpi"},
      {DistributedTransport::nccl, "nccl"}};
  return names;
}

template <typename E>
std::string_view to_string(E value) {
  for (const auto& [v, name] : enum_names<E>()) {
    if (v == value) return name;
  }
  return "?";
}

template <typename E>
bool from_string(std::string_view name, E& value) {
  for (const auto& [v, n] : enum_names<E>()) {
    if (n == name) {
      value = v;
      return true;
    }
  }
  return false;
}

template <typename E>
std::string allowed_names() {
  std::string out;
  for (const auto& entry : enum_names<E>()) {
    if (!out.empty()) out += " | ";
    out += entry.second;
  }
  return out;
}

#define PRISM_INSTANTIATE_ENUM(E)                     \
  template std::string_view to_string<E>(E);          \
  template bool from_string<E>(std::string_view, E&); \
  template std::string allowed_names<E>();

PRISM_INSTANTIATE_ENUM(BackendKind)
PRISM_INSTANTIATE_ENUM(CpuKernels)
PRISM_INSTANTIATE_ENUM(Ordering)
PRISM_INSTANTIATE_ENUM(VertexOrder)
PRISM_INSTANTIATE_ENUM(ColoringMethod)
PRISM_INSTANTIATE_ENUM(TrisolveAlgorithm)
PRISM_INSTANTIATE_ENUM(TimingMode)
PRISM_INSTANTIATE_ENUM(SpmvAlgorithm)
PRISM_INSTANTIATE_ENUM(Ic0Factorization)
PRISM_INSTANTIATE_ENUM(GraphMode)
PRISM_INSTANTIATE_ENUM(Precision)
PRISM_INSTANTIATE_ENUM(BlockIcSolve)
PRISM_INSTANTIATE_ENUM(MatrixCheck)
PRISM_INSTANTIATE_ENUM(ColorsetLayout)
PRISM_INSTANTIATE_ENUM(CgVariant)
PRISM_INSTANTIATE_ENUM(SetupSite)
PRISM_INSTANTIATE_ENUM(DistributedTransport)
#undef PRISM_INSTANTIATE_ENUM

const char* phase_name(Phase phase) {
  switch (phase) {
    case Phase::spmv:
      return "spmv";
    case Phase::precond:
      return "precond";
    case Phase::lower_solve:
      return "lower_solve";
    case Phase::upper_solve:
      return "upper_solve";
    case Phase::dot:
      return "dot";
    case Phase::update:
      return "update";
  }
  return "?";
}

const char* status_name(SolveStatus status) {
  switch (status) {
    case SolveStatus::converged:
      return "converged";
    case SolveStatus::max_iterations:
      return "max_iterations";
    case SolveStatus::breakdown:
      return "breakdown";
    case SolveStatus::stagnated:
      return "stagnated";
    case SolveStatus::stopped:
      return "stopped";
  }
  return "?";
}

}  // namespace prism
