#include "precond/preconditioner.hpp"

#include <prism/capabilities.hpp>
#include <prism/errors.hpp>

namespace prism {
namespace precond {

Registry::Registry() {
  add("none", make_identity);
  add("jacobi", make_jacobi);
  add("ic0", make_ic0);
}

Registry& Registry::instance() {
  static Registry registry;
  return registry;
}

void Registry::add(const std::string& name, Factory factory) {
  for (auto& entry : entries_) {
    if (entry.first == name) {
      entry.second = std::move(factory);
      return;
    }
  }
  entries_.emplace_back(name, std::move(factory));
}

void Registry::require(const std::string& name) const {
  for (const auto& entry : entries_) {
    if (entry.first == name) return;
  }
  std::string allowed;
  for (const auto& n : names()) allowed += (allowed.empty() ? "" : ", ") + n;
  throw ConfigError("unknown preconditioner '" + name + "'; allowed: " + allowed);
}

std::unique_ptr<Preconditioner> Registry::create(const std::string& name, backend::Backend& backend,
                                                 const PreconditionerOptions& options) const {
  require(name);
  for (const auto& entry : entries_) {
    if (entry.first == name) return entry.second(backend, options);
  }
  return nullptr;  // unreachable: require() threw
}

std::vector<std::string> Registry::names() const {
  std::vector<std::string> out;
  for (const auto& entry : entries_) out.push_back(entry.first);
  return out;
}

}  // namespace precond

std::vector<std::string> preconditioner_names() {
  return precond::Registry::instance().names();
}

}  // namespace prism
