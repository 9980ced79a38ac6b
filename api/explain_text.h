// The explanations of a pass run as text: what `qrt inspect --explain` prints.
#pragma once

#include <string>

#include "passes/rewriter.h"

namespace qrt {

// Per pass, then per pattern and outcome (rewritten, or refused with its reason) in
// first-seen order: how many candidates, and the first three by name and op.
std::string ExplanationsText(const Explanations& all);

}  // namespace qrt
