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

std::string legend(double x, double y, const std::vector<LegendEntry>& entries,
                   std::size_t max_chars) {
  std::string out = "<g class=\"legend\">";
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const double row = y + 18.0 * static_cast<double>(i);
    out += fmt::format("<g transform=\"translate({} {})\">", num(x), num(row));
    out += entries[i].swatch;
    out += "<title>" + esc(entries[i].label) + "</title>";
    out += text(18, 10, shorten(entries[i].label, max_chars), "start", "legend-text");
    out += "</g>";
  }
  return out + "</g>";
}

std::string figure(const std::string& title, const std::string& svg, const std::string& table,
                   const std::string& table_note) {
  return "<figure class=\"chart\"><figcaption>" + esc(title) +
         "</figcaption><div class=\"chart-body\">" + svg + "<div class=\"chart-table\">" +
         (table_note.empty() ? "" : "<p>" + esc(table_note) + "</p>") + table +
         "</div></div></figure>\n";
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
