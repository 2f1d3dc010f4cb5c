#pragma once
// Step-curve files: one row per training trial, header with at least the columns `batch,steps`
// (extra columns such as learning rate or wall time are allowed and ignored). `steps` is the
// number of optimizer updates the trial needed to reach the target; `inf`, `nan` or an empty field
// marks a trial that never reached it (diverged or out of budget). Several rows may share a batch
// size (Shallue et al. 2018: the curve takes the minimum over a batch size's trials). Lines that
// start with '#' are comments (provenance: command, seed, date). Run metadata: the `# provenance:`,
// `# date:` and `# cost:` comments and a trial's wall_s column differ between two runs of the same
// measurement (a resumed one included); kneepoint fit and report ignore them.
#include <iosfwd>
#include <map>
#include <string>
#include <vector>

namespace kp {

// Bounds of a curve file's values: a batch is an integer in 1..kMaxCurveBatch, a step count a
// number in 1..kMaxCurveSteps (a trial takes at least one update); outside them a row is an error.
constexpr double kMaxCurveBatch = 1e9;
constexpr double kMaxCurveSteps = 1e12;

struct CurvePoint {
  double batch = 0.0;  // global batch size, > 0
  double steps = 0.0;  // updates to target, > 0; +infinity = the trial failed
};

// Throws ConfigError naming file:line:col for every bad row (all collected, one throw), for a
// file without data rows, and for a published-steps file (a `measure` column, published_curve.h),
// whose rows belong to several curves that must not be fitted together; read_csv_table()'s limits
// (size, rows) apply.
std::vector<CurvePoint> read_curve_csv(const std::string& path);

// The provenance of a curve file: its leading `# key: value` comment lines as a map (the first
// occurrence of a key wins; comment lines without ": " are skipped). A missing file gives an
// empty map.
std::map<std::string, std::string> read_curve_provenance(const std::string& path);

// Writes `# comment` lines (one per '\n'-separated line of comment, if any), the header
// `batch,steps` and one row per point with round-trip precision; failed trials as `inf`.
void write_curve_csv(std::ostream& out, const std::vector<CurvePoint>& points,
                     const std::string& comment = "");
void write_curve_csv(const std::string& path, const std::vector<CurvePoint>& points,
                     const std::string& comment = "");

}  // namespace kp
