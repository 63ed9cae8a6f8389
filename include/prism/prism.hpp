#pragma once
/// @file
/// Umbrella header: everything an application needs.

#include <prism/analysis.hpp>
#include <prism/capabilities.hpp>
#include <prism/csr_matrix.hpp>
#include <prism/errors.hpp>
#include <prism/generators.hpp>
#include <prism/matrix_market.hpp>
#include <prism/options.hpp>
#include <prism/problem.hpp>
#include <prism/report.hpp>
#include <prism/report_io.hpp>
#include <prism/solver.hpp>
#include <prism/types.hpp>
