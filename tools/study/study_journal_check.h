#pragma once
// The payload check of a study journal. A line whose CRC holds can still be wrong: cut short and
// re-checksummed, edited by hand, or written by another version. Contract: check_study_journal()
// decodes every record of `c` (header, designs, verifications) and checks that each index lies
// inside the study the header describes; the first bad record is one ConfigError naming
// path:line. After it passes, decode_*() of these payloads cannot throw and every index is valid.
#include <string>

#include "tools/study/study_journal.h"

namespace kp {

void check_study_journal(const StudyJournalContents& c, const std::string& path);

}  // namespace kp
