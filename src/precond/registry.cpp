#include "precond/preconditioner.hpp"

#include <prism/capabilities.hpp>
#include <prism/errors.hpp>

namespace prism {
namespace precond {

Registry::Registry() {
  add("none", make_identity);
  add("jacobi", make_jacobi);
  add("ic0", make_ic0);
  add("block_ic", make_block_ic, Partition::blocks);
  add("line_jacobi", make_line_jacobi, Partition::lines);
  add("line_ic", make_line_ic, Partition::colored_lines);
  add(kUserPreconditioner, make_user);
}

Registry& Registry::instance() {
  static Registry registry;
  return registry;
}

void Registry::add(const std::string& name, Factory factory, Partition partition) {
  for (auto& entry : entries_) {
    if (entry.name == name) {
      entry.factory = std::move(factory);
      entry.partition = partition;
      return;
    }
  }
  entries_.push_back({name, std::move(factory), partition});
}

Partition Registry::partition(const std::string& name) const {
  for (const auto& entry : entries_) {
    if (entry.name == name) return entry.partition;
  }
  return Partition::none;
}

void Registry::require(const std::string& name) const {
  for (const auto& entry : entries_) {
    if (entry.name == name) return;
  }
  std::string allowed;
  for (const auto& n : names()) allowed += (allowed.empty() ? "" : ", ") + n;
  throw ConfigError("unknown preconditioner '" + name + "'; allowed: " + allowed);
}

std::unique_ptr<Preconditioner> Registry::create(const std::string& name, backend::Backend& backend,
                                                 const PreconditionerOptions& options) const {
  require(name);
  for (const auto& entry : entries_) {
    if (entry.name == name) return entry.factory(backend, options);
  }
  return nullptr;  // unreachable: require() threw
}

std::vector<std::string> Registry::names() const {
  std::vector<std::string> out;
  for (const auto& entry : entries_) out.push_back(entry.name);
  return out;
}

}  // namespace precond

std::vector<std::string> preconditioner_names() {
  return precond::Registry::instance().names();
}

}  // namespace prism
