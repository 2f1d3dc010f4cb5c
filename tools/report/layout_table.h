#pragma once
// The report's parallel-layout section (studies with `layout:`): per design and chip count the best
// batch and layout, the memory per chip, the pipeline bubble, the tensor-parallel and exposed
// gradient communication, and how many (M, P) points fit no layout tried (infeasible, never
// chosen). Contract: empty when the study has no `layout:`; every column states its unit.
#include <string>

#include "tools/study/study_result.h"

namespace kp {

std::string layout_section_md(const StudyResult& r);
std::string layout_section_html(const StudyResult& r);

}  // namespace kp
