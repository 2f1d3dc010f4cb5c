// report.html in a real browser: headless Chromium (--headless --no-sandbox --disable-gpu, a fresh
// --user-data-dir each run) loads the quick-start report, must log no console message, must keep
// every plot in its DOM with marks, and must paint a non-blank page; a contact sheet of every plot
// (legends removed) must show coloured marks inside each plot (40 px at least: a sparse scatter of
// four dots; the axes-only control paints none). The quick start, the two sweep reports
// (tpu_v3_design_space, tpu_v3_array_area), the two-system comparison (t4_vs_h100) and the
// layout search (gpt3_layouts, whose layout table is the widest) open with the answer, and a
// script measures every label's box: no two overlap, none leaves its plot, the page is no wider
// than its window.
// Negative controls prove that the console scan, the mark count and the label scan can fail.
// Skipped, with the reason, only if Chromium is absent (tools/test.sh installs it, so CI runs it).
#include <gtest/gtest.h>

#include <stdlib.h>
#include <sys/wait.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>

#include "core/config_doc.h"
#include "tests/tools/png_image.h"
#include "tools/report/report_writer.h"
#include "tools/report/svg_plot.h"
#include "tools/study/study_runner.h"

namespace kp {
namespace {

const std::string kSrc = KP_SOURCE_DIR;

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string chromium() {
  if (const char* env = std::getenv("KP_CHROMIUM")) return env;
  for (const char* name : {"chromium", "chromium-browser", "google-chrome"})
    if (std::system((std::string("command -v ") + name + " > /dev/null 2>&1").c_str()) == 0) return name;
  return "";
}

std::string fresh_dir(const std::string& stem) {
  std::string templ = ::testing::TempDir() + stem + "-XXXXXX";
  if (!::mkdtemp(templ.data())) ADD_FAILURE() << "mkdtemp " << templ;
  return templ;
}

struct BrowserRun {
  bool ok = false;
  std::string out, err;
};

// One headless run with a fresh profile; `timeout` keeps a hung browser from hanging the suite, and
// --disable-dev-shm-usage keeps it alive in containers with a small /dev/shm (CI).
BrowserRun run_chromium(const std::string& args) {
  const std::string dir = fresh_dir("chromium");
  const std::string cmd = "cd " + dir + " && HOME=" + dir + " XDG_CONFIG_HOME=" + dir + " XDG_CACHE_HOME=" + dir +
                          " timeout 180 " + chromium() + " --headless --no-sandbox --disable-gpu --user-data-dir=" +
                          dir + "/profile --no-first-run --hide-scrollbars --disable-dev-shm-usage --enable-logging=stderr --v=0 " + args +
                          " > " + dir + "/out.txt 2> " + dir + "/err.txt";
  const int status = std::system(cmd.c_str());
  BrowserRun r;
  r.ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
  r.out = slurp(dir + "/out.txt");
  r.err = slurp(dir + "/err.txt");
  return r;
}

// Chromium logs every console message of the page as "...:CONSOLE(...)" or "...:CONSOLE:...".
std::string console_lines(const std::string& log) {
  std::istringstream in(log);
  std::string line, hits;
  while (std::getline(in, line))
    if (line.find(":CONSOLE") != std::string::npos) hits += line + "\n";
  return hits;
}

std::vector<std::string> svg_blocks(const std::string& html) {
  std::vector<std::string> out;
  for (size_t at = html.find("<svg"); at != std::string::npos; at = html.find("<svg", at + 1))
    out.push_back(html.substr(at, html.find("</svg>", at) + 6 - at));
  return out;
}

size_t count(const std::string& hay, const std::string& needle) {
  size_t n = 0;
  for (size_t at = hay.find(needle); at != std::string::npos; at = hay.find(needle, at + 1)) ++n;
  return n;
}

// Marks: polylines, circles and data rectangles (those carry a hover title); frames and swatches do not.
size_t marks(const std::string& svg) {
  return count(svg, "<polyline") + count(svg, "<circle") + count(svg, "</title></rect>");
}

std::string strip_legend(std::string svg) {
  for (size_t at = svg.find("<g class=\"legend\""); at != std::string::npos; at = svg.find("<g class=\"legend\""))
    svg.erase(at, svg.find("</g>", at) + 4 - at);
  return svg;
}

// The report of a shipped study, written once per test run.
std::string report_dir(const std::string& study) {
  static std::map<std::string, std::string> dirs;
  if (!dirs.count(study)) {
    const std::string d = fresh_dir("render-" + study);
    write_report(run_study(parse_study(ConfigDoc::load(kSrc + "/studies/" + study + ".yaml")), nullptr), d);
    dirs[study] = d;
  }
  return dirs[study];
}
std::string quickstart_dir() { return report_dir("quickstart"); }

// Appended to a page: lists every pair of <text> boxes of one plot that overlap by more than a
// pixel each way, every text that leaves its plot, a page wider than its 1280 px window and a
// table wider than the column it sits in (it would scroll or spill), between markers in the dumped DOM.
const char* kOverlapScan = R"(<script>
const out = [];
if (document.documentElement.scrollWidth > window.innerWidth + 1)
  out.push('the page is ' + document.documentElement.scrollWidth + ' px wide in a ' + window.innerWidth + ' px window');
document.querySelectorAll('table').forEach((t, n) => {
  const column = t.parentElement.clientWidth, width = Math.ceil(t.getBoundingClientRect().width);
  if (width > column + 1) out.push('table ' + n + ' is ' + width + ' px wide in a ' + column + ' px column');
});
document.querySelectorAll('svg').forEach((svg, n) => {
  const frame = svg.getBoundingClientRect();
  const texts = [...svg.querySelectorAll('text')].map(t => ({b: t.getBoundingClientRect(), s: t.textContent}));
  texts.forEach((a, i) => {
    if (a.b.left < frame.left - 1 || a.b.right > frame.right + 1 || a.b.top < frame.top - 1 || a.b.bottom > frame.bottom + 1)
      out.push('plot ' + n + ': "' + a.s + '" leaves the plot');
    for (let j = i + 1; j < texts.length; ++j) {
      const b = texts[j].b;
      const ox = Math.min(a.b.right, b.right) - Math.max(a.b.left, b.left);
      const oy = Math.min(a.b.bottom, b.bottom) - Math.max(a.b.top, b.top);
      if (ox > 1 && oy > 1) out.push('plot ' + n + ': "' + a.s + '" overlaps "' + texts[j].s + '"');
    }
  });
});
const pre = document.createElement('pre');
pre.textContent = 'KP-OVERLAPS-BEGIN\n' + out.join('\n') + '\nKP-OVERLAPS-END';
document.body.appendChild(pre);
</script>)";

// The overlap lines the scan finds in `html` (one per line, "" when none); `dir` holds the copy.
std::string overlaps(const std::string& html, const std::string& dir) {
  std::string page = html;
  page.insert(page.rfind("</body>"), kOverlapScan);
  std::ofstream(dir + "/scan.html") << page;
  const BrowserRun r = run_chromium("--window-size=1280,1000 --dump-dom file://" + dir + "/scan.html");
  EXPECT_TRUE(r.ok) << r.err;
  // The script's own text holds the end marker too, with "\\n" where the output has a line break.
  const size_t begin = r.out.find("KP-OVERLAPS-BEGIN\n"), end = r.out.find("KP-OVERLAPS-END", begin);
  if (begin == std::string::npos || end == std::string::npos) return "the scan did not run";
  std::string found = r.out.substr(begin + 18, end - begin - 18);
  while (!found.empty() && found.back() == '\n') found.pop_back();
  return found;
}

#define REQUIRE_CHROMIUM() \
  if (chromium().empty()) GTEST_SKIP() << "chromium is not installed (tools/test.sh installs it; CI runs this test)"

}  // namespace

TEST(ChromiumRender, ConsoleScanCatchesAPageError) {
  REQUIRE_CHROMIUM();
  const std::string dir = fresh_dir("render-bad");
  std::ofstream(dir + "/bad.html") << "<!DOCTYPE html><html><body><script>console.error('kp-probe')</script></body></html>";
  const BrowserRun r = run_chromium("--dump-dom file://" + dir + "/bad.html");
  ASSERT_TRUE(r.ok) << r.err;
  EXPECT_NE(console_lines(r.err).find("kp-probe"), std::string::npos) << r.err;
}

TEST(ChromiumRender, OverlapScanCatchesOverlappingAndEscapingLabelsAndWidePages) {
  REQUIRE_CHROMIUM();
  const std::string found =
      overlaps("<!DOCTYPE html><html><body><svg width=\"200\" height=\"100\"><text x=\"10\" y=\"20\">first label</text>"
               "<text x=\"14\" y=\"22\">second label</text><text x=\"150\" y=\"50\">runs off the edge</text></svg>"
               "<div style=\"width:3000px\">a table too wide</div></body></html>", fresh_dir("render-overlap"));
  EXPECT_NE(found.find("\"first label\" overlaps \"second label\""), std::string::npos) << found;
  EXPECT_NE(found.find("\"runs off the edge\" leaves the plot"), std::string::npos) << found;
  EXPECT_NE(found.find("the page is 30"), std::string::npos) << found;
}

// Every shipped study: the quick start, a sweep over four keys (the design-space plots and the
// sweep heat map), a sweep over array size, two systems side by side and a layout search.
TEST(ChromiumRender, NoLabelOverlapsAnotherOrLeavesItsPlotAndThePageFits) {
  REQUIRE_CHROMIUM();
  for (const char* study : {"quickstart", "tpu_v3_design_space", "tpu_v3_array_area", "t4_vs_h100", "gpt3_layouts"}) {
    SCOPED_TRACE(study);
    const std::string html = slurp(report_dir(study) + "/report.html");
    EXPECT_EQ(html.find("<section"), html.find("<section id=\"answer\""));  // the answer first
    EXPECT_EQ(overlaps(html, report_dir(study)), "");
  }
}

TEST(ChromiumRender, ReportLoadsWithoutConsoleMessagesAndKeepsEveryPlot) {
  REQUIRE_CHROMIUM();
  const std::string html = slurp(quickstart_dir() + "/report.html");
  const BrowserRun r = run_chromium("--dump-dom file://" + quickstart_dir() + "/report.html");
  ASSERT_TRUE(r.ok) << r.err;
  EXPECT_EQ(console_lines(r.err), "");
  const std::vector<std::string> source = svg_blocks(html), dom = svg_blocks(r.out);
  ASSERT_GE(source.size(), 8u);
  ASSERT_EQ(dom.size(), source.size()) << "the browser's DOM lost or split a plot";
  for (size_t i = 0; i < dom.size(); ++i) {
    SCOPED_TRACE(dom[i].substr(0, 200));
    EXPECT_GT(marks(dom[i]), 0u);
    EXPECT_GE(count(dom[i], "class=\"axis-label\""), 2u);
  }
}

TEST(ChromiumRender, ScreenshotOfTheReportIsNotBlank) {
  REQUIRE_CHROMIUM();
  const std::string png = quickstart_dir() + "/report.png";
  const BrowserRun r = run_chromium("--window-size=1280,2400 --screenshot=" + png + " file://" + quickstart_dir() +
                                    "/report.html");
  ASSERT_TRUE(r.ok) << r.err;
  EXPECT_EQ(console_lines(r.err), "");
  test::RgbImage img;
  std::string error;
  ASSERT_TRUE(test::read_png(png, img, error)) << error;
  ASSERT_EQ(img.width, 1280);
  ASSERT_EQ(img.height, 2400);
  // The answer (dark text) in the first screen, coloured plots further down.
  size_t dark = 0;
  for (int y = 0; y < 600; ++y)
    for (int x = 0; x < img.width; ++x) dark += img.at(x, y)[0] < 100 && img.at(x, y)[1] < 100;
  EXPECT_GT(dark, 2000u) << png;
  EXPECT_GT(test::count_coloured(img, 0, 0, img.width, img.height), 20000u) << png;
  std::printf("screenshot: %s\n", png.c_str());
}

TEST(ChromiumRender, EveryPlotPaintsColouredMarksInsideItsCell) {
  REQUIRE_CHROMIUM();
  std::vector<std::string> plots = svg_blocks(slurp(quickstart_dir() + "/report.html"));
  for (const std::string& svg : svg_blocks(slurp(report_dir("tpu_v3_design_space") + "/report.html")))
    plots.push_back(svg);
  const size_t n_report = plots.size();
  SvgPlot empty("axes only (negative control)");
  empty.x_axis("x (samples)", 1, 1000, true);
  empty.y_axis("y (s)", 0, 1, false);
  plots.push_back(empty.str());
  const int cols = 4, cell_w = 420, cell_h = 270;
  const int rows = static_cast<int>((plots.size() + cols - 1) / cols);
  std::string page = "<!DOCTYPE html><html><head><meta charset=\"utf-8\"/><style>body{margin:0;background:#fff}"
                     "div{position:absolute;width:400px;height:250px}svg{width:400px;height:250px}</style></head><body>";
  for (size_t i = 0; i < plots.size(); ++i)
    page += "<div style=\"left:" + std::to_string(static_cast<int>(i % cols) * cell_w) + "px;top:" +
            std::to_string(static_cast<int>(i / cols) * cell_h) + "px\">" + strip_legend(plots[i]) + "</div>";
  page += "</body></html>";
  const std::string dir = fresh_dir("render-sheet");
  std::ofstream(dir + "/sheet.html") << page;
  const BrowserRun r = run_chromium("--window-size=" + std::to_string(cols * cell_w) + "," +
                                    std::to_string(rows * cell_h) + " --screenshot=" + dir + "/sheet.png file://" +
                                    dir + "/sheet.html");
  ASSERT_TRUE(r.ok) << r.err;
  test::RgbImage img;
  std::string error;
  ASSERT_TRUE(test::read_png(dir + "/sheet.png", img, error)) << error;
  for (size_t i = 0; i < plots.size(); ++i) {
    const int x0 = static_cast<int>(i % cols) * cell_w, y0 = static_cast<int>(i / cols) * cell_h;
    const size_t coloured = test::count_coloured(img, x0, y0, x0 + 400, y0 + 250);
    if (i < n_report)
      EXPECT_GT(coloured, 40u) << "plot " << i << " paints no marks: " << plots[i].substr(0, 200) << "\n" << dir;
    else
      EXPECT_LT(coloured, 10u) << "the control (axes only) counts as marks: the check cannot fail";
  }
}

}  // namespace kp
