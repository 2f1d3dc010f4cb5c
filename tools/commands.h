#pragma once
// One function per CLI verb. Contract: args excludes the program name and the verb; returns the
// process exit code (0 ok, 2 user error); throws ConfigError for bad input (the main maps it to 2).
#include <string>
#include <vector>

namespace kp {

using Args = std::vector<std::string>;

int run_simulate(const Args& args);
int run_predict(const Args& args);
int run_study(const Args& args);
int run_scalesim(const Args& args);
int run_train(const Args& args);
int run_fit(const Args& args);
int run_validate(const Args& args);
int run_validate_published(const Args& args);  // validate published (cmd_validate_published.cpp)
int run_calibrate(const Args& args);
int run_curve(const Args& args);
int run_report(const Args& args);
int run_import(const Args& args);  // built with KP_WITH_ONNX (tools/import/)

struct StudyResult;
// Writes report.html, report.md, points.csv and summary.json into `out` and prints the answer
// (cmd_study.cpp; shared by study and report).
void write_study_outputs(const StudyResult& r, const std::string& out);

}  // namespace kp
