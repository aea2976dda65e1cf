// The escaping layer (core/base/escaped.h): what a writer refuses at compile time, and each
// format's rules on hostile strings.
#include "core/base/escaped.h"

#include <gtest/gtest.h>

#include <string>
#include <type_traits>
#include <utility>

namespace peerbench::out {
namespace {

template <class W, class T, class = void>
struct Writable : std::false_type {};
template <class W, class T>
struct Writable<W, T, std::void_t<decltype(std::declval<W&>() << std::declval<T>())>>
    : std::true_type {};

// The point of the types: text of unknown origin does not reach a writer without esc<F>().
static_assert(!Writable<Writer<Term>, std::string>::value);
static_assert(!Writable<Writer<Html>, const std::string&>::value);
static_assert(!Writable<Writer<Markdown>, std::string_view>::value);
static_assert(!Writable<Writer<Csv>, const char*>::value);
static_assert(!Writable<Writer<Xml>, char>::value);
static_assert(!Writable<Writer<OmLabel>, bool>::value);
static_assert(
    !Writable<Writer<Html>, Safe<Markdown>>::value);  // one format's text is not another's
static_assert(!std::is_convertible_v<std::string, Safe<Html>>);
static_assert(!std::is_convertible_v<const char*, Safe<Term>>);
static_assert(Writable<Writer<Html>, Safe<Html>>::value);
static_assert(Writable<Writer<Csv>, const char (&)[3]>::value);  // a literal of the code
static_assert(Writable<Writer<Term>, int>::value);
static_assert(Writable<Writer<Term>, double>::value);

std::string hostile() {
  return std::string("a\x1b[2Jb\nc\r\x07", 9) + std::string(1, '\0') +
         "d\xff|<script>&\"'_*`[x](y)\\";
}

bool has_control(const std::string& s, bool allow_newline) {
  for (unsigned char c : s) {
    if ((c < 0x20 && !(allow_newline && c == '\n')) || c == 0x7f) return true;
  }
  return false;
}

TEST(Escaped, TermShowsEveryControlAndLineBreak) {
  const auto s = esc<Term>(hostile()).str();
  EXPECT_FALSE(has_control(s, false)) << s;
  EXPECT_NE(s.find("\\x1b[2J"), std::string::npos) << s;
  EXPECT_NE(s.find("\\x0a"), std::string::npos) << s;
  EXPECT_NE(s.find("\\x00"), std::string::npos) << s;
  EXPECT_NE(s.find("\\xff"), std::string::npos) << s;  // invalid UTF-8
  EXPECT_EQ(esc<Term>("GPU 0 (0000:00:06.0)").str(), "GPU 0 (0000:00:06.0)");
}

TEST(Escaped, MarkdownEndsNoCellAndStartsNoMarkup) {
  const auto s = esc<Markdown>(hostile()).str();
  EXPECT_FALSE(has_control(s, false)) << s;
  EXPECT_EQ(s.find("|"), s.find("\\|") + 1) << s;  // the only bar is escaped
  EXPECT_EQ(s.find("<script>"), std::string::npos) << s;
  EXPECT_NE(s.find("\\<script\\>"), std::string::npos) << s;
  EXPECT_NE(s.find("\\\\"), std::string::npos) << s;  // a backslash cannot escape the next char
  EXPECT_NE(s.find("\\[x\\](y)"), std::string::npos) << s;
  EXPECT_EQ(markdown_link("plots/a b)c.png").str(), "plots/a%20b%29c.png");
}

TEST(Escaped, HtmlAndXmlCarryNoMarkupNorControls) {
  for (const auto& s : {esc<Html>(hostile()).str(), esc<Xml>(hostile()).str()}) {
    EXPECT_FALSE(has_control(s, true)) << s;
    EXPECT_EQ(s.find_first_of("<>\"'"), std::string::npos) << s;
    EXPECT_NE(s.find("&lt;script&gt;&amp;&quot;&#39;"), std::string::npos) << s;
  }
}

TEST(Escaped, CsvIsOneFieldAndNoFormula) {
  const auto s = esc<Csv>(hostile()).str();
  EXPECT_FALSE(has_control(s, true)) << s;
  EXPECT_EQ(s.front(), '"');  // it holds a quote and a line break: quoted
  EXPECT_EQ(s.back(), '"');
  EXPECT_EQ(esc<Csv>("=1+2").str(), "'=1+2");
  EXPECT_EQ(esc<Csv>("\t=HYPERLINK(x)").str(), "'\\x09=HYPERLINK(x)");
  EXPECT_EQ(esc<Csv>("a,b").str(), "\"a,b\"");
  EXPECT_EQ(esc<Csv>("plain").str(), "plain");
}

TEST(Escaped, OpenMetricsLabelValueUsesOnlyItsThreeEscapes) {
  const auto s = esc<OmLabel>(hostile()).str();
  EXPECT_FALSE(has_control(s, false)) << s;
  // Every backslash starts one of \\, \" or \n.
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '\\') continue;
    ASSERT_LT(i + 1, s.size());
    EXPECT_NE(std::string("\\\"n").find(s[i + 1]), std::string::npos) << s;
    ++i;
  }
}

TEST(Escaped, WritersJoinSafePiecesAndNumbers) {
  Writer<Html> w;
  w << "<td>" << esc<Html>("<b>") << "</td>" << 3 << " " << 2.5 << " " << fixed<Html>(1.0 / 3, 2);
  EXPECT_EQ(w.str(), "<td>&lt;b&gt;</td>3 2.5 0.33");
  const Safe<Markdown> joined = "**" + esc<Markdown>("a_b") + "**";
  EXPECT_EQ(joined.str(), "**a\\_b**");
}

}  // namespace
}  // namespace peerbench::out
