// The facade's wire format alone (src/server/openai_facade_wire.h): content
// parts and data URLs read, task prompts told apart from questions, the
// short title (words, length, UTF-8, punctuation), readable results, and the
// chunk shapes.
#include "server/openai_facade_wire.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tools/imaging/image_codec.h"

namespace medreact::server::openai {
namespace {

using ::testing::HasSubstr;

Json User(Json content) { return {{"role", "user"}, {"content", std::move(content)}}; }

Result<ChatRequest> Parse(Json messages, std::string* field = nullptr, size_t cap = 1 << 20) {
  return ParseChatRequest(Json{{"model", "medreact-chat"}, {"messages", std::move(messages)}}, cap, field);
}

TEST(OpenAiFacadeWireTest, ContentIsAStringNullOrTextAndImageParts) {
  const std::string png = std::string("\x89PNG\r\n\x1a\n", 8) + "rest";
  Result<ChatRequest> r = Parse(Json::array(
      {{{"role", "developer"}, {"content", "be brief"}},
       {{"role", "assistant"}, {"content", nullptr}},
       User(Json::array({{{"type", "text"}, {"text", "first"}},
                         {{"type", "image_url"}, {"image_url", {{"url", "data:image/png;base64," +
                                                                            imaging::Base64Encode(png)}}}},
                         {{"type", "text"}, {"text", "second"}}}))}));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->messages.size(), 3u);
  EXPECT_EQ(r->messages[0].role, "system");
  EXPECT_EQ(r->messages[1].text, "");
  EXPECT_EQ(r->messages[2].text, "first\nsecond");
  ASSERT_EQ(r->messages[2].images.size(), 1u);
  EXPECT_EQ(r->messages[2].images[0].kind, "png");
  EXPECT_EQ(r->messages[2].images[0].bytes, png);
  EXPECT_EQ(LastUserText(*r), "first\nsecond");

  std::string field;
  EXPECT_FALSE(Parse(Json::array({User(Json::array({{{"type", "input_audio"}}}))}), &field).ok());
  EXPECT_EQ(field, "messages[0].content[0].type");
  EXPECT_FALSE(Parse(Json::array({User(42)}), &field).ok());
  EXPECT_EQ(field, "messages[0].content");
  const std::string jpeg = "\xff\xd8\xff\xe0 and more";
  Result<ChatRequest> big = Parse(
      Json::array({User(Json::array({{{"type", "image_url"},
                                      {"image_url", "data:image/jpeg;base64," + imaging::Base64Encode(jpeg)}}}))}),
      &field, 4);
  ASSERT_FALSE(big.ok());
  EXPECT_THAT(big.status().message(), HasSubstr("larger than this server's limit of 4 bytes"));
}

TEST(OpenAiFacadeWireTest, TaskPromptsAreToldApartFromQuestions) {
  auto task = [](const std::string& text) {
    ChatRequest r;
    r.messages.push_back({.role = "user", .text = text});
    return DetectTask(r);
  };
  EXPECT_EQ(task("### Task:\nGenerate a concise, 3-5 word title with an emoji."), TaskKind::kTitleJson);
  EXPECT_EQ(task("  ### Task:\nGenerate 1-3 broad tags categorizing the main themes"), TaskKind::kTags);
  EXPECT_EQ(task("### Task:\nSuggest 3-5 relevant follow-up questions or prompts"), TaskKind::kFollowUps);
  EXPECT_EQ(task("### Task:\nAnalyze the chat history to determine the necessity of generating search queries"),
            TaskKind::kOtherTask);
  EXPECT_EQ(task("Please generate a concise, 5-word-or-less title for the conversation"), TaskKind::kTitleText);
  EXPECT_EQ(task("What title should a discharge letter have?"), TaskKind::kNone);
  EXPECT_EQ(task("Please generate a concise summary of the labs"), TaskKind::kNone);
  ChatRequest q;
  q.messages.push_back({.role = "user", .text = "### Task:\nAnalyze ... search queries"});
  EXPECT_EQ(TaskAnswer(TaskKind::kOtherTask, q), R"({"queries":[]})");
}

TEST(OpenAiFacadeWireTest, TheShortTitleKeepsTheFirstWordsWithinFiftyCharacters) {
  EXPECT_EQ(ShortTitle("What is the CHA2DS2-VASc score of a 70 year old?"), "What is the CHA2DS2-VASc score of");
  EXPECT_EQ(ShortTitle("Dosing?"), "Dosing");
  EXPECT_EQ(ShortTitle("\"Quoted question\"\nsecond line"), "Quoted question");
  EXPECT_EQ(ShortTitle("   "), "Clinical question");
  EXPECT_EQ(ShortTitle("?!"), "Clinical question");
  // One long word is cut at 50 bytes, never inside a UTF-8 character.
  std::string accents;
  for (int i = 0; i < 40; ++i) accents += "\xc3\xa9";  // é
  const std::string cut = ShortTitle(accents);
  EXPECT_EQ(cut.size(), 50u);
  EXPECT_EQ(cut, accents.substr(0, 50));
  EXPECT_LE(ShortTitle("Pneumothorax management in spontaneous presentations with recurrence").size(), 50u);
}

TEST(OpenAiFacadeWireTest, ResultsReadAsTextAndChunksHaveOpenAisShape) {
  EXPECT_EQ(ReadableResult(Json{{"answer", "It is 4."}, {"steps", 2}}), "It is 4.");
  EXPECT_EQ(ReadableResult(Json{{"report_markdown", "# Report"}, {"answer", ""}}), "# Report");
  EXPECT_EQ(ReadableResult(Json{{"priority", 1}, {"reason", "PE"}}), "priority: 1\nreason: PE\n");
  Json chunk = Chunk("chatcmpl-x", "medreact-chat", 7, Json{{"content", "hi"}});
  EXPECT_EQ(chunk["object"], "chat.completion.chunk");
  EXPECT_TRUE(chunk["choices"][0]["finish_reason"].is_null());
  Json usage = UsageChunk("chatcmpl-x", "medreact-chat", 7, Json{{"prompt_tokens", 3}});
  EXPECT_EQ(usage["usage"], (Json{{"prompt_tokens", 3}, {"completion_tokens", 0}, {"total_tokens", 0}}));
  EXPECT_TRUE(usage["choices"].empty());
  EXPECT_EQ(SseData(Json{{"a", 1}}), "data: {\"a\":1}\n\n");
}

}  // namespace
}  // namespace medreact::server::openai
