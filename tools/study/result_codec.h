#pragma once
// Text encoding of study results for the journal: one line per record, space-separated tokens,
// doubles in the shortest digits that read back exactly (std::to_chars; journals written with
// %.17g read the same: an exact round trip, so a resumed or regenerated report is
// byte-identical to an uninterrupted run), strings percent-encoded (no spaces, no line breaks).
// Contract: decode_*(encode_*(x)) == x field by field; decoding malformed text throws
// std::runtime_error saying what is wrong: a record whose CRC holds can still be cut short or edited
// (study_journal_check.h turns these into errors naming the journal's line). A count is bounded by
// the record's length, so a corrupt one never sizes a huge vector.
#include <string>

#include "tools/study/study_result.h"

namespace kp {

// The study header: spec (with its sweep) and the workloads, no design points.
std::string encode_header(const StudySpec& spec, const std::vector<WorkloadResult>& workloads);
void decode_header(const std::string& text, StudySpec& spec, std::vector<WorkloadResult>& workloads);

// One design point without rank, Pareto flag and verification (recomputed / journaled apart).
std::string encode_design(const SystemResult& s);
SystemResult decode_design(const std::string& text);

std::string encode_verify(size_t index, const VerifyResult& v);
VerifyResult decode_verify(const std::string& text, size_t& index);

}  // namespace kp
