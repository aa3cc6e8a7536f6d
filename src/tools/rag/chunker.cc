// Markdown sections and word windows. Lines are classified once (heading,
// setext underline, fence, blank, text); sections are the spans between
// headings; each section's words are then windowed. See chunker.h.
#include "tools/rag/chunker.h"
#include "core/text_util.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <utility>

namespace medreact {
namespace {

struct Line {
  size_t begin = 0;  // offset of the first byte
  size_t end = 0;    // offset of the '\n' (or of the end of text)
  std::string_view text;
};

std::vector<Line> SplitLines(std::string_view text) {
  std::vector<Line> lines;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    lines.push_back({pos, nl, text.substr(pos, nl - pos)});
    pos = nl + 1;
  }
  return lines;
}

// Up to three spaces of indentation, as CommonMark allows for block markers.
std::string_view StripIndent(std::string_view line) {
  size_t n = 0;
  while (n < 3 && n < line.size() && line[n] == ' ') ++n;
  return line.substr(n);
}


// "```" or "~~~" (3+), returns the fence char and length; 0 when not a fence.
std::pair<char, size_t> FenceOf(std::string_view line) {
  std::string_view s = StripIndent(line);
  if (s.empty() || (s[0] != '`' && s[0] != '~')) return {0, 0};
  size_t n = 0;
  while (n < s.size() && s[n] == s[0]) ++n;
  return n >= 3 ? std::pair<char, size_t>{s[0], n} : std::pair<char, size_t>{0, 0};
}

// ATX heading: level 1-6 and the title (closing #s removed), or level 0.
std::pair<int, std::string> AtxHeading(std::string_view line) {
  std::string_view s = StripIndent(line);
  int level = 0;
  while (level < static_cast<int>(s.size()) && s[level] == '#') ++level;
  if (level < 1 || level > 6) return {0, {}};
  if (level < static_cast<int>(s.size()) && s[level] != ' ' && s[level] != '\t') return {0, {}};
  std::string_view title = TrimView(s.substr(level));
  // A closing sequence is #s preceded by a space (or the whole title).
  size_t hashes = 0;
  while (hashes < title.size() && title[title.size() - 1 - hashes] == '#') ++hashes;
  if (hashes == title.size()) {
    title = {};
  } else if (hashes > 0 && (title[title.size() - 1 - hashes] == ' ' || title[title.size() - 1 - hashes] == '\t')) {
    title = TrimView(title.substr(0, title.size() - hashes));
  }
  return {level, std::string(title)};
}

// Setext underline: 1 for "===", 2 for "---", 0 otherwise.
int SetextLevel(std::string_view line) {
  std::string_view s = TrimView(StripIndent(line));
  if (s.empty() || (s[0] != '=' && s[0] != '-')) return 0;
  if (line.size() - StripIndent(line).size() > 3) return 0;
  for (char c : s) {
    if (c != s[0]) return 0;
  }
  return s[0] == '=' ? 1 : 2;
}

// Lines that cannot be a setext title: list items, quotes, table rows.
bool CanBeSetextTitle(std::string_view line) {
  std::string_view s = StripIndent(line);
  if (s.empty() || s.front() == '>' || s.front() == '|' || s.front() == '#') return false;
  if ((s[0] == '-' || s[0] == '*' || s[0] == '+') && (s.size() == 1 || s[1] == ' ')) return false;
  size_t digits = 0;
  while (digits < s.size() && std::isdigit(static_cast<unsigned char>(s[digits]))) ++digits;
  if (digits > 0 && digits < s.size() && (s[digits] == '.' || s[digits] == ')')) return false;
  return true;
}

// A span of the document under one heading path.
struct Section {
  std::string heading;
  size_t begin = 0;
  size_t end = 0;
};

std::string JoinPath(const std::vector<std::pair<int, std::string>>& stack) {
  std::string path;
  for (const auto& [level, title] : stack) {
    if (title.empty()) continue;
    if (!path.empty()) path += kHeadingSeparator;
    path += title;
  }
  return path;
}

std::vector<Section> MarkdownSections(std::string_view text) {
  const std::vector<Line> lines = SplitLines(text);
  std::vector<Section> sections;
  std::vector<std::pair<int, std::string>> stack;  // (level, title)
  Section current{"", 0, 0};
  char fence_char = 0;
  size_t fence_len = 0;

  auto open_heading = [&](int level, std::string title, size_t heading_begin, size_t body_begin) {
    current.end = heading_begin;
    sections.push_back(current);
    while (!stack.empty() && stack.back().first >= level) stack.pop_back();
    stack.emplace_back(level, std::move(title));
    current = Section{JoinPath(stack), body_begin, body_begin};
  };

  for (size_t i = 0; i < lines.size(); ++i) {
    const Line& line = lines[i];
    const size_t next = std::min(line.end + 1, text.size());
    if (fence_char != 0) {
      auto [c, n] = FenceOf(line.text);
      if (c == fence_char && n >= fence_len && IsBlank(StripIndent(line.text).substr(n))) fence_char = 0;
      continue;
    }
    if (auto [c, n] = FenceOf(line.text); c != 0) {
      fence_char = c;
      fence_len = n;
      continue;
    }
    if (auto [level, title] = AtxHeading(line.text); level > 0) {
      open_heading(level, std::move(title), line.begin, next);
      continue;
    }
    // Setext: a one-line paragraph followed by === or ---.
    if (i + 1 < lines.size() && !IsBlank(line.text) && CanBeSetextTitle(line.text) &&
        (i == 0 || IsBlank(lines[i - 1].text) || AtxHeading(lines[i - 1].text).first > 0)) {
      if (int level = SetextLevel(lines[i + 1].text); level > 0) {
        const Line& underline = lines[i + 1];
        open_heading(level, std::string(TrimView(line.text)), line.begin, std::min(underline.end + 1, text.size()));
        ++i;
        continue;
      }
    }
  }
  current.end = text.size();
  sections.push_back(current);
  return sections;
}

// Offsets [begin, end) of every word in text[from, to).
std::vector<std::pair<size_t, size_t>> Words(std::string_view text, size_t from, size_t to) {
  std::vector<std::pair<size_t, size_t>> words;
  size_t pos = from;
  while (pos < to) {
    while (pos < to && IsAsciiSpace(text[pos])) ++pos;
    if (pos >= to) break;
    size_t start = pos;
    while (pos < to && !IsAsciiSpace(text[pos])) ++pos;
    words.emplace_back(start, pos);
  }
  return words;
}

class Emitter {
 public:
  Emitter(std::string_view text, const std::string& source, std::vector<Chunk>& out)
      : text_(text), source_(source), out_(out) {}

  void Emit(const std::string& heading, size_t begin, size_t end) {
    Chunk chunk;
    chunk.source = source_;
    chunk.heading = heading;
    chunk.ordinal = static_cast<int>(out_.size());
    chunk.begin = begin;
    chunk.end = end;
    chunk.text = std::string(text_.substr(begin, end - begin));
    out_.push_back(std::move(chunk));
  }

  // Evenly spread windows of at most `target` words overlapping by at least
  // `overlap` (give or take one from rounding).
  void EmitWindows(const std::string& heading, const std::vector<std::pair<size_t, size_t>>& words,
                   size_t first, size_t last, const ChunkerOptions& options) {
    const long n_words = static_cast<long>(last - first);
    if (n_words <= 0) return;
    const long target = std::max(1, options.target_words);
    const long overlap = std::clamp<long>(options.overlap_words, 0, target - 1);
    if (n_words <= target) {
      Emit(heading, words[first].first, words[last - 1].second);
      return;
    }
    const long count = (n_words - overlap + (target - overlap) - 1) / (target - overlap);
    const long size = (n_words + (count - 1) * overlap + count - 1) / count;
    for (long i = 0; i < count; ++i) {
      const long start =
          count == 1 ? 0 : std::lround(static_cast<double>(i) * static_cast<double>(n_words - size) / (count - 1));
      const long stop = std::min(start + size, n_words);
      Emit(heading, words[first + start].first, words[first + stop - 1].second);
    }
  }

 private:
  std::string_view text_;
  const std::string& source_;
  std::vector<Chunk>& out_;
};

}  // namespace

std::vector<Chunk> ChunkMarkdown(std::string_view text, const std::string& source, const ChunkerOptions& options) {
  std::vector<Chunk> chunks;
  Emitter emitter(text, source, chunks);
  for (const Section& section : MarkdownSections(text)) {
    const auto words = Words(text, section.begin, section.end);
    emitter.EmitWindows(section.heading, words, 0, words.size(), options);
  }
  return chunks;
}

std::vector<Chunk> ChunkPlainText(std::string_view text, const std::string& source, const ChunkerOptions& options) {
  std::vector<Chunk> chunks;
  Emitter emitter(text, source, chunks);
  const size_t target = static_cast<size_t>(std::max(1, options.target_words));

  // Paragraphs as [first word, last word) index ranges.
  const auto words = Words(text, 0, text.size());
  std::vector<std::pair<size_t, size_t>> paragraphs;
  size_t start = 0;
  for (size_t i = 1; i <= words.size(); ++i) {
    bool breaks = i == words.size();
    if (!breaks) {
      // A blank line between two words: two newlines in the gap.
      std::string_view gap = text.substr(words[i - 1].second, words[i].first - words[i - 1].second);
      size_t newlines = std::count(gap.begin(), gap.end(), '\n');
      breaks = newlines >= 2;
    }
    if (breaks && i > start) {
      paragraphs.emplace_back(start, i);
      start = i;
    }
  }

  size_t pack_first = 0, pack_last = 0;  // words of the chunk being packed
  auto flush = [&] {
    if (pack_last > pack_first) emitter.Emit("", words[pack_first].first, words[pack_last - 1].second);
    pack_first = pack_last = 0;
  };
  for (const auto& [first, last] : paragraphs) {
    const size_t n = last - first;
    if (n > target) {
      flush();
      emitter.EmitWindows("", words, first, last, options);
      continue;
    }
    if (pack_last > pack_first && (pack_last - pack_first) + n > target) flush();
    if (pack_last == pack_first) pack_first = first;
    pack_last = last;
  }
  flush();
  return chunks;
}

std::vector<Chunk> ChunkDocument(std::string_view text, const std::string& source, const ChunkerOptions& options) {
  std::string lower;
  for (char c : source) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  auto ends_with = [&](std::string_view suffix) {
    return lower.size() >= suffix.size() && lower.compare(lower.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  if (ends_with(".md") || ends_with(".markdown")) return ChunkMarkdown(text, source, options);
  return ChunkPlainText(text, source, options);
}

}  // namespace medreact
