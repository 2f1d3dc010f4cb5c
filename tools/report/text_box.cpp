#include "tools/report/text_box.h"

namespace kp {
namespace {

// DejaVu Sans Book and Bold advance widths of ' ' .. '~' in font units (2048 to the em), read from
// the fonts' hmtx tables (DejaVu Fonts 2.37, https://dejavu-fonts.github.io; Debian fonts-dejavu-core).
constexpr int kAdvance[95] = {
    651,  821,  942,  1716, 1303, 1946, 1597, 563,  799,  799,  1024, 1716, 651,  739,  651,  690,   // ' ' .. '/'
    1303, 1303, 1303, 1303, 1303, 1303, 1303, 1303, 1303, 1303, 690,  690,  1716, 1716, 1716, 1087,  // '0' .. '?'
    2048, 1401, 1405, 1430, 1577, 1294, 1178, 1587, 1540, 604,  604,  1343, 1141, 1767, 1532, 1612,  // '@' .. 'O'
    1235, 1612, 1423, 1300, 1251, 1499, 1401, 2025, 1403, 1251, 1403, 799,  690,  799,  1716, 1024,  // 'P' .. '_'
    1024, 1255, 1300, 1126, 1300, 1260, 721,  1300, 1298, 569,  569,  1186, 569,  1995, 1298, 1253,  // '`' .. 'o'
    1300, 1300, 842,  1067, 803,  1298, 1212, 1675, 1212, 1212, 1075, 1303, 690,  1303, 1716};       // 'p' .. '~'

constexpr int kAdvanceBold[95] = {
     713,  934, 1067, 1716, 1425, 2052, 1786,  627,  936,  936, 1071, 1716,  778,  850,  778,  748,
    1425, 1425, 1425, 1425, 1425, 1425, 1425, 1425, 1425, 1425,  819,  819, 1716, 1716, 1716, 1188,
    2048, 1585, 1561, 1503, 1700, 1399, 1399, 1681, 1714,  762,  762, 1587, 1305, 2038, 1714, 1741,
    1501, 1741, 1577, 1475, 1397, 1663, 1585, 2259, 1579, 1483, 1485,  936,  748,  936, 1716, 1024,
    1024, 1382, 1466, 1214, 1466, 1389,  891, 1466, 1458,  702,  702, 1362,  702, 2134, 1458, 1407,
    1466, 1466, 1010, 1219,  979, 1458, 1335, 1892, 1321, 1335, 1192, 1458,  748, 1458, 1716};

}  // namespace

bool Box::intersects(const Box& o, double gap_px) const {
  return left < o.right + gap_px && o.left < right + gap_px && top < o.bottom + gap_px && o.top < bottom + gap_px;
}

bool Box::inside(const Box& f) const { return left >= f.left && right <= f.right && top >= f.top && bottom <= f.bottom; }

double text_width_px(const std::string& text, double font_px, bool bold) {
  double units = 0;
  for (unsigned char c : text) {
    if (c >= 32 && c <= 126) units += (bold ? kAdvanceBold : kAdvance)[c - 32];
    else if ((c & 0xC0) != 0x80) units += 2048;  // a UTF-8 lead byte (or a control): one em
  }
  return units / 2048.0 * font_px * 1.05;
}

Box text_box(const std::string& text, double x, double baseline_y, Anchor anchor, double font_px, bool bold) {
  const double w = text_width_px(text, font_px, bold);
  const double left = anchor == Anchor::start ? x : anchor == Anchor::middle ? x - w / 2 : x - w;
  return {left - 0.5, baseline_y - 0.93 * font_px - 0.5, left + w + 0.5, baseline_y + 0.24 * font_px + 0.5};
}

const char* anchor_name(Anchor a) { return a == Anchor::start ? "start" : a == Anchor::middle ? "middle" : "end"; }

}  // namespace kp
