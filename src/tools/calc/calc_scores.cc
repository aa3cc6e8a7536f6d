// Calculators of this group are being added (issue 4); see calculator.h.
#include "tools/calc/calculator.h"

namespace medreact::calc {

void AddRiskScoreCalculators(std::vector<Calculator>& out) { (void)out; }

}  // namespace medreact::calc
