#include "core/present/svg_parts.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/present/report.h"

namespace peerbench::svg {

std::string esc(const std::string& s) {
  // XML 1.0 cannot carry C0 controls other than tab and line breaks, even escaped.
  std::string clean;
  clean.reserve(s.size());
  for (char c : s) {
    if (static_cast<unsigned char>(c) >= 0x20 || c == '\n' || c == '\t') clean += c;
  }
  return html_escape(clean);
}

std::string num(double v, int decimals) {
  if (!std::isfinite(v)) v = 0;
  std::string s = fmt::format("{:.{}f}", v, decimals);
  if (s[0] == '-' && s.find_first_not_of("0.", 1) == std::string::npos) s.erase(0, 1);
  return s;
}

std::string series_colour(std::size_t i) {
  static const char* const kColours[] = {"#0072B2", "#E69F00", "#009E73", "#CC79A7",
                                         "#56B4E9", "#D55E00", "#000000", "#F0E442"};
  return kColours[i % 8];
}

std::string series_dash(std::size_t i) {
  static const char* const kDashes[] = {"", " stroke-dasharray=\"8 3\"",
                                        " stroke-dasharray=\"2 3\"",
                                        " stroke-dasharray=\"8 3 2 3\""};
  return kDashes[(i / 8) % 4];
}

std::string series_marker(std::size_t i, double x, double y, const std::string& colour,
                          const std::string& tooltip) {
  const std::string tip = tooltip.empty() ? "" : "<title>" + esc(tooltip) + "</title>";
  switch ((i / 8) % 4) {
    case 1:
      return fmt::format("<rect x=\"{}\" y=\"{}\" width=\"7\" height=\"7\" fill=\"{}\">{}</rect>",
                         num(x - 3.5), num(y - 3.5), colour, tip);
    case 2:
      return fmt::format("<path d=\"M{} {}l4.5 4.5l-4.5 4.5l-4.5 -4.5z\" fill=\"{}\">{}</path>",
                         num(x), num(y - 4.5), colour, tip);
    case 3:
      return fmt::format("<path d=\"M{} {}l4.5 8l-9 0z\" fill=\"{}\">{}</path>", num(x), num(y - 5),
                         colour, tip);
    default:
      return fmt::format("<circle cx=\"{}\" cy=\"{}\" r=\"3.5\" fill=\"{}\">{}</circle>", num(x),
                         num(y), colour, tip);
  }
}

std::vector<double> nice_ticks(double lo, double hi, int target) {
  if (!(hi > lo)) hi = lo + 1;
  const double raw = (hi - lo) / std::max(1, target);
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  double step = mag;
  for (double m : {1.0, 2.0, 2.5, 5.0, 10.0}) {
    step = m * mag;
    if (step >= raw) break;
  }
  std::vector<double> out;
  const double first = std::floor(lo / step) * step;
  for (double t = first; t < hi + step * 0.999 && out.size() < 64; t += step) out.push_back(t);
  return out;
}

std::string text(double x, double y, const std::string& content, const std::string& anchor,
                 const std::string& cls, const std::string& extra) {
  return fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"{}\" class=\"{}\"{}{}>{}</text>",
                     num(x), num(y), anchor, cls, extra.empty() ? "" : " ", extra, esc(content));
}

std::string svg_open(int width, int height, const std::string& title, const std::string& desc) {
  return fmt::format(
      // Inline in HTML, the parser puts it in the SVG namespace: no xmlns (and no URL) needed.
      "<svg class=\"chart\" width=\"{0}\" height=\"{1}\" "
      "viewBox=\"0 0 {0} {1}\" role=\"img\" aria-label=\"{2}\"><title>{2}</title><desc>{3}</desc>"
      "<rect class=\"bg\" x=\"0\" y=\"0\" width=\"{0}\" height=\"{1}\"/>",
      width, height, esc(title), esc(desc));
}

std::string shorten(const std::string& s, std::size_t max_chars) {
  std::vector<std::size_t> starts;  // where each character begins
  for (std::size_t i = 0; i < s.size(); ++i) {
    if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80) starts.push_back(i);
  }
  if (starts.size() <= max_chars || max_chars == 0) return s;
  return s.substr(0, starts[max_chars - 1]) + "\u2026";  // an ellipsis
}

std::vector<std::string> wrap(const std::string& s, std::size_t max_chars) {
  std::vector<std::string> lines;
  std::string line;
  std::size_t start = 0;
  while (start <= s.size()) {
    std::size_t end = s.find(' ', start);
    if (end == std::string::npos) end = s.size();
    const std::string word = s.substr(start, end - start);
    if (!line.empty() && line.size() + 1 + word.size() > max_chars) {
      lines.push_back(line);
      line.clear();
    }
    line += (line.empty() ? "" : " ") + word;
    start = end + 1;
  }
  if (!line.empty()) lines.push_back(line);
  return lines;
}

namespace {

// DejaVu Sans's advance widths of ' ' to '~', in thousandths of an em (measured in Chromium).
constexpr short kAdvance[95] = {
    318, 401, 460, 838, 636, 950, 780, 275, 390, 390, 500, 838, 318, 361,  318, 337, 636, 636, 636,
    636, 636, 636, 636, 636, 636, 636, 337, 337, 838, 838, 838, 531, 1000, 684, 686, 698, 770, 632,
    575, 775, 752, 295, 295, 656, 557, 863, 748, 787, 603, 787, 695, 635,  611, 732, 684, 989, 685,
    611, 685, 390, 337, 390, 838, 500, 500, 613, 635, 550, 635, 615, 352,  635, 634, 278, 278, 579,
    278, 974, 634, 612, 635, 635, 411, 521, 392, 634, 592, 818, 592, 592,  525, 636, 337, 636, 838};
constexpr short kBoldAdvance[95] = {
    348,  456, 521, 838, 696, 1002, 872, 306,  457, 457, 523, 838, 380, 415,  380, 365,
    696,  696, 696, 696, 696, 696,  696, 696,  696, 696, 400, 400, 838, 838,  838, 580,
    1000, 774, 762, 734, 830, 683,  683, 821,  837, 372, 372, 775, 637, 995,  837, 850,
    733,  850, 770, 720, 682, 812,  774, 1103, 771, 724, 725, 457, 365, 457,  838, 500,
    500,  675, 716, 593, 716, 678,  435, 716,  712, 343, 343, 665, 343, 1042, 712, 687,
    716,  716, 493, 595, 478, 712,  652, 924,  645, 652, 582, 712, 365, 712,  838};

// The byte length of the UTF-8 character starting at s[i].
std::size_t char_bytes(const std::string& s, std::size_t i) {
  std::size_t n = 1;
  while (i + n < s.size() && (static_cast<unsigned char>(s[i + n]) & 0xC0) == 0x80) ++n;
  return n;
}

}  // namespace

double text_width(const std::string& s, double font_px, bool bold) {
  double em = 0;
  for (std::size_t i = 0; i < s.size(); i += char_bytes(s, i)) {
    const auto c = static_cast<unsigned char>(s[i]);
    em += c >= 0x20 && c < 0x7f ? (bold ? kBoldAdvance : kAdvance)[c - 0x20] : 1000;
  }
  return em * font_px / 1000;
}

std::vector<std::string> wrap_px(const std::string& s, double max_px, double font_px, bool bold) {
  std::vector<std::string> lines;
  std::string line;
  const auto fits = [&](const std::string& t) { return text_width(t, font_px, bold) <= max_px; };
  std::vector<std::string> words;
  for (std::size_t at = 0; at <= s.size();) {
    const std::size_t end = std::min(s.find(' ', at), s.size());
    if (end > at) words.push_back(s.substr(at, end - at));
    at = end + 1;
  }
  for (const std::string& word : words) {
    const std::string joined = line.empty() ? word : line + " " + word;
    if (fits(joined)) {
      line = joined;
      continue;
    }
    if (!line.empty()) lines.push_back(line);
    line.clear();
    // A word wider than the line is cut where it reaches the edge (a PCI pair, a path).
    for (std::size_t i = 0; i < word.size(); i += char_bytes(word, i)) {
      const std::string more = line + word.substr(i, char_bytes(word, i));
      if (!line.empty() && !fits(more)) {
        lines.push_back(line);
        line = word.substr(i, char_bytes(word, i));
      } else {
        line = more;
      }
    }
  }
  if (!line.empty() || lines.empty()) lines.push_back(line);
  return lines;
}

Legend legend(double x, double y, const std::vector<LegendEntry>& entries, double max_text_px) {
  Legend out;
  out.svg = "<g class=\"legend\">";
  double row = y;
  for (const auto& e : entries) {
    const auto lines = wrap_px(e.label, max_text_px, kLegendFont);
    out.svg += fmt::format("<g transform=\"translate({} {})\">", num(x), num(row));
    out.svg += e.swatch;
    out.svg += "<title>" + esc(e.label) + "</title>";
    for (std::size_t i = 0; i < lines.size(); ++i) {
      out.svg += text(18, 10 + 13.0 * static_cast<double>(i), lines[i], "start", "legend-text");
      out.width = std::max(out.width, 18 + text_width(lines[i], kLegendFont));
    }
    out.svg += "</g>";
    row += 18 + 13.0 * static_cast<double>(lines.size() - 1);
  }
  out.svg += "</g>";
  out.height = row - y;
  return out;
}

std::string figure(const std::string& title, const std::string& svg, const std::string& table,
                   const std::string& table_note) {
  return figure(title, std::vector<Panel>{{svg, table, table_note}});
}

std::string figure(const std::string& title, const std::vector<Panel>& panels) {
  std::string o = "<figure class=\"chart\"><figcaption>" + esc(title) + "</figcaption>";
  for (const auto& p : panels) {
    o += "<div class=\"chart-body\">" + p.svg + "<div class=\"chart-table\">" +
         (p.table_note.empty() ? "" : "<p>" + esc(p.table_note) + "</p>") + p.table +
         "</div></div>";
  }
  return o + "</figure>\n";
}

std::string html_table(const std::vector<std::string>& head,
                       const std::vector<std::vector<std::string>>& rows,
                       const std::vector<bool>& numeric) {
  auto cell_html = [](const std::string& s) {
    std::string out = esc(s);
    for (std::size_t p = out.find('\n'); p != std::string::npos; p = out.find('\n', p))
      out.replace(p, 1, "<br>");
    return out;
  };
  std::string out = "<table><tr>";
  for (const auto& h : head) out += "<th>" + cell_html(h) + "</th>";
  out += "</tr>\n";
  for (const auto& r : rows) {
    out += "<tr>";
    for (std::size_t c = 0; c < r.size(); ++c) {
      const bool n = c < numeric.size() && numeric[c];
      out += (n ? "<td class=\"n\">" : "<td>") + cell_html(r[c]) + "</td>";
    }
    out += "</tr>\n";
  }
  return out + "</table>";
}

}  // namespace peerbench::svg
