#include "tools/fhir/smart_auth.h"

#include <dlfcn.h>
#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/ecdsa.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>

#include <array>
#include <utility>

#include "core/file_io.h"
#include "core/text_util.h"

namespace medreact {

namespace {

// libcrypto's entry points, resolved at the first signature (dlopen), as
// core/http_curl.cc does for libcurl: a command that signs nothing never maps
// OpenSSL (tests/integration/startup_libraries_test.cc). OpenSSL 3's soname.
constexpr char kCryptoLibrary[] = "libcrypto.so.3";

struct CryptoApi {
  decltype(&::BIO_new_mem_buf) BIO_new_mem_buf = nullptr;
  decltype(&::BIO_free) BIO_free = nullptr;
  decltype(&::PEM_read_bio_PrivateKey) PEM_read_bio_PrivateKey = nullptr;
  decltype(&::PEM_read_bio_PUBKEY) PEM_read_bio_PUBKEY = nullptr;
  decltype(&::EVP_PKEY_free) EVP_PKEY_free = nullptr;
  decltype(&::EVP_PKEY_is_a) EVP_PKEY_is_a = nullptr;
  decltype(&::EVP_PKEY_get_bits) EVP_PKEY_get_bits = nullptr;
  decltype(&::EVP_PKEY_get_utf8_string_param) EVP_PKEY_get_utf8_string_param = nullptr;
  decltype(&::EVP_PKEY_get0_type_name) EVP_PKEY_get0_type_name = nullptr;
  decltype(&::RAND_bytes) RAND_bytes = nullptr;
  decltype(&::EVP_MD_CTX_new) EVP_MD_CTX_new = nullptr;
  decltype(&::EVP_MD_CTX_free) EVP_MD_CTX_free = nullptr;
  decltype(&::EVP_DigestSignInit) EVP_DigestSignInit = nullptr;
  decltype(&::EVP_DigestSign) EVP_DigestSign = nullptr;
  decltype(&::EVP_DigestVerifyInit) EVP_DigestVerifyInit = nullptr;
  decltype(&::EVP_DigestVerify) EVP_DigestVerify = nullptr;
  decltype(&::EVP_sha384) EVP_sha384 = nullptr;
  decltype(&::d2i_ECDSA_SIG) d2i_ECDSA_SIG = nullptr;
  decltype(&::i2d_ECDSA_SIG) i2d_ECDSA_SIG = nullptr;
  decltype(&::ECDSA_SIG_new) ECDSA_SIG_new = nullptr;
  decltype(&::ECDSA_SIG_free) ECDSA_SIG_free = nullptr;
  decltype(&::ECDSA_SIG_get0) ECDSA_SIG_get0 = nullptr;
  decltype(&::ECDSA_SIG_set0) ECDSA_SIG_set0 = nullptr;
  decltype(&::BN_bn2binpad) BN_bn2binpad = nullptr;
  decltype(&::BN_bin2bn) BN_bin2bn = nullptr;
  decltype(&::BN_free) BN_free = nullptr;
  decltype(&::CRYPTO_free) CRYPTO_free = nullptr;
};

template <typename F>
bool Bind(void* library, const char* name, F& fn) {
  fn = reinterpret_cast<F>(::dlsym(library, name));
  return fn != nullptr;
}

Result<const CryptoApi*> OpenCrypto() {
  void* library = ::dlopen(kCryptoLibrary, RTLD_LAZY | RTLD_LOCAL);
  if (library == nullptr) {
    const char* why = ::dlerror();
    return Status::Unavailable(std::string("cannot load ") + kCryptoLibrary + " (Debian package libssl3): " +
                               (why != nullptr ? why : "unknown error"));
  }
  static CryptoApi api;
  const bool bound =
      Bind(library, "BIO_new_mem_buf", api.BIO_new_mem_buf) &&
      Bind(library, "BIO_free", api.BIO_free) &&
      Bind(library, "PEM_read_bio_PrivateKey", api.PEM_read_bio_PrivateKey) &&
      Bind(library, "PEM_read_bio_PUBKEY", api.PEM_read_bio_PUBKEY) &&
      Bind(library, "EVP_PKEY_free", api.EVP_PKEY_free) &&
      Bind(library, "EVP_PKEY_is_a", api.EVP_PKEY_is_a) &&
      Bind(library, "EVP_PKEY_get_bits", api.EVP_PKEY_get_bits) &&
      Bind(library, "EVP_PKEY_get_utf8_string_param", api.EVP_PKEY_get_utf8_string_param) &&
      Bind(library, "EVP_PKEY_get0_type_name", api.EVP_PKEY_get0_type_name) &&
      Bind(library, "RAND_bytes", api.RAND_bytes) &&
      Bind(library, "EVP_MD_CTX_new", api.EVP_MD_CTX_new) &&
      Bind(library, "EVP_MD_CTX_free", api.EVP_MD_CTX_free) &&
      Bind(library, "EVP_DigestSignInit", api.EVP_DigestSignInit) &&
      Bind(library, "EVP_DigestSign", api.EVP_DigestSign) &&
      Bind(library, "EVP_DigestVerifyInit", api.EVP_DigestVerifyInit) &&
      Bind(library, "EVP_DigestVerify", api.EVP_DigestVerify) &&
      Bind(library, "EVP_sha384", api.EVP_sha384) &&
      Bind(library, "d2i_ECDSA_SIG", api.d2i_ECDSA_SIG) &&
      Bind(library, "i2d_ECDSA_SIG", api.i2d_ECDSA_SIG) &&
      Bind(library, "ECDSA_SIG_new", api.ECDSA_SIG_new) &&
      Bind(library, "ECDSA_SIG_free", api.ECDSA_SIG_free) &&
      Bind(library, "ECDSA_SIG_get0", api.ECDSA_SIG_get0) &&
      Bind(library, "ECDSA_SIG_set0", api.ECDSA_SIG_set0) &&
      Bind(library, "BN_bn2binpad", api.BN_bn2binpad) &&
      Bind(library, "BN_bin2bn", api.BN_bin2bn) &&
      Bind(library, "BN_free", api.BN_free) &&
      Bind(library, "CRYPTO_free", api.CRYPTO_free);
  if (!bound) return Status::Unavailable(std::string(kCryptoLibrary) + " lacks a function medreact needs (OpenSSL < 3.0)");
  return &api;
}

// libcrypto, loaded once per process and never unloaded.
const Result<const CryptoApi*>& Crypto() {
  static const Result<const CryptoApi*> loaded = OpenCrypto();
  return loaded;
}

// The loaded library (callers check Crypto() first).
const CryptoApi& C() { return **Crypto(); }

constexpr char kB64Url[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
constexpr size_t kEs384Half = 48;  // P-384: r and s are 48 bytes each (RFC 7518 section 3.4)
constexpr size_t kMaxKeyFileBytes = 64 * 1024;

struct PkeyDeleter {
  void operator()(EVP_PKEY* k) const { C().EVP_PKEY_free(k); }
};
struct BioDeleter {
  void operator()(BIO* b) const { C().BIO_free(b); }
};
struct MdCtxDeleter {
  void operator()(EVP_MD_CTX* c) const { C().EVP_MD_CTX_free(c); }
};
struct SigDeleter {
  void operator()(ECDSA_SIG* s) const { C().ECDSA_SIG_free(s); }
};
using Pkey = std::unique_ptr<EVP_PKEY, PkeyDeleter>;

enum class Alg { kRs384, kEs384 };

Result<Pkey> ReadKey(std::string_view pem, bool is_private) {
  std::unique_ptr<BIO, BioDeleter> bio(C().BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  if (!bio) return Status::Internal("OpenSSL: cannot allocate a buffer");
  EVP_PKEY* key = is_private ? C().PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr)
                             : C().PEM_read_bio_PUBKEY(bio.get(), nullptr, nullptr, nullptr);
  if (key == nullptr) {
    return Status::InvalidArgument(is_private ? "the SMART private key is not a PEM private key (or needs a passphrase)"
                                              : "not a PEM public key");
  }
  return Pkey(key);
}

Result<Alg> AlgorithmOf(EVP_PKEY* key) {
  if (C().EVP_PKEY_is_a(key, "RSA")) {
    if (C().EVP_PKEY_get_bits(key) < 2048) return Status::InvalidArgument("the RSA key is shorter than 2048 bits");
    return Alg::kRs384;
  }
  if (C().EVP_PKEY_is_a(key, "EC")) {
    char group[64] = {0};
    size_t len = 0;
    if (C().EVP_PKEY_get_utf8_string_param(key, OSSL_PKEY_PARAM_GROUP_NAME, group, sizeof group, &len) != 1 ||
        (std::string_view(group) != "secp384r1" && std::string_view(group) != "P-384")) {
      return Status::InvalidArgument("the EC key is not on curve P-384 (ES384 needs it)");
    }
    return Alg::kEs384;
  }
  return Status::InvalidArgument(std::string("the key type ") + C().EVP_PKEY_get0_type_name(key) +
                                 " is not RSA or EC P-384 (SMART backend services sign with RS384 or ES384)");
}

std::string HexRandom(size_t bytes) {
  std::string raw(bytes, '\0');
  C().RAND_bytes(reinterpret_cast<unsigned char*>(raw.data()), static_cast<int>(raw.size()));
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (unsigned char c : raw) {
    out += kHex[c >> 4];
    out += kHex[c & 15];
  }
  return out;
}

// DER ECDSA-Sig-Value → r || s, each left-padded to 48 bytes.
Result<std::string> DerToJose(std::string_view der) {
  const auto* p = reinterpret_cast<const unsigned char*>(der.data());
  std::unique_ptr<ECDSA_SIG, SigDeleter> sig(C().d2i_ECDSA_SIG(nullptr, &p, static_cast<long>(der.size())));
  if (!sig) return Status::Internal("OpenSSL: the ECDSA signature is not DER");
  const BIGNUM* r = nullptr;
  const BIGNUM* s = nullptr;
  C().ECDSA_SIG_get0(sig.get(), &r, &s);
  std::string out(2 * kEs384Half, '\0');
  auto* o = reinterpret_cast<unsigned char*>(out.data());
  if (C().BN_bn2binpad(r, o, kEs384Half) < 0 || C().BN_bn2binpad(s, o + kEs384Half, kEs384Half) < 0) {
    return Status::Internal("OpenSSL: an ECDSA signature part is longer than 48 bytes");
  }
  return out;
}

Result<std::string> JoseToDer(std::string_view raw) {
  if (raw.size() != 2 * kEs384Half) return Status::InvalidArgument("an ES384 signature is 96 bytes");
  const auto* p = reinterpret_cast<const unsigned char*>(raw.data());
  std::unique_ptr<ECDSA_SIG, SigDeleter> sig(C().ECDSA_SIG_new());
  BIGNUM* r = C().BN_bin2bn(p, kEs384Half, nullptr);
  BIGNUM* s = C().BN_bin2bn(p + kEs384Half, kEs384Half, nullptr);
  if (!sig || r == nullptr || s == nullptr || C().ECDSA_SIG_set0(sig.get(), r, s) != 1) {
    C().BN_free(r);
    C().BN_free(s);
    return Status::Internal("OpenSSL: cannot build an ECDSA signature");
  }
  unsigned char* der = nullptr;
  const int len = C().i2d_ECDSA_SIG(sig.get(), &der);
  if (len <= 0) return Status::Internal("OpenSSL: cannot encode an ECDSA signature");
  std::string out(reinterpret_cast<char*>(der), static_cast<size_t>(len));
  C().CRYPTO_free(der, __FILE__, __LINE__);
  return out;
}

}  // namespace

std::string Base64UrlEncode(std::string_view bytes) {
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    const uint32_t v = (uint32_t(uint8_t(bytes[i])) << 16) | (uint32_t(uint8_t(bytes[i + 1])) << 8) | uint8_t(bytes[i + 2]);
    out += kB64Url[(v >> 18) & 63];
    out += kB64Url[(v >> 12) & 63];
    out += kB64Url[(v >> 6) & 63];
    out += kB64Url[v & 63];
  }
  if (i + 1 == bytes.size()) {
    const uint32_t v = uint32_t(uint8_t(bytes[i])) << 16;
    out += kB64Url[(v >> 18) & 63];
    out += kB64Url[(v >> 12) & 63];
  } else if (i + 2 == bytes.size()) {
    const uint32_t v = (uint32_t(uint8_t(bytes[i])) << 16) | (uint32_t(uint8_t(bytes[i + 1])) << 8);
    out += kB64Url[(v >> 18) & 63];
    out += kB64Url[(v >> 12) & 63];
    out += kB64Url[(v >> 6) & 63];
  }
  return out;
}

Result<std::string> Base64UrlDecode(std::string_view text) {
  while (!text.empty() && text.back() == '=') text.remove_suffix(1);
  std::string out;
  uint32_t acc = 0;
  int bits = 0;
  for (char c : text) {
    int v = -1;
    if (c >= 'A' && c <= 'Z') v = c - 'A';
    else if (c >= 'a' && c <= 'z') v = c - 'a' + 26;
    else if (c >= '0' && c <= '9') v = c - '0' + 52;
    else if (c == '-' || c == '+') v = 62;
    else if (c == '_' || c == '/') v = 63;
    if (v < 0) return Status::ParseError("not base64url");
    acc = (acc << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>((acc >> bits) & 0xff);
    }
  }
  return out;
}

Result<std::string> SignJwtAssertion(std::string_view key_pem, const JwtAssertionClaims& claims) {
  if (claims.client_id.empty()) return Status::InvalidArgument("SMART: the client id is empty");
  if (claims.audience.empty()) return Status::InvalidArgument("SMART: the token URL (aud) is empty");
  if (claims.lifetime.count() <= 0 || claims.lifetime > std::chrono::seconds(300)) {
    return Status::InvalidArgument("SMART: a client assertion lives at most 5 minutes");
  }
  if (!Crypto().ok()) return Crypto().status();
  Result<Pkey> key = ReadKey(key_pem, /*is_private=*/true);
  if (!key.ok()) return key.status();
  Result<Alg> alg = AlgorithmOf(key->get());
  if (!alg.ok()) return alg.status();

  Json header = {{"alg", *alg == Alg::kRs384 ? "RS384" : "ES384"}, {"typ", "JWT"}};
  if (!claims.kid.empty()) header["kid"] = claims.kid;
  const int64_t now = std::chrono::duration_cast<std::chrono::seconds>(claims.now.time_since_epoch()).count();
  Json body = {{"iss", claims.client_id},
               {"sub", claims.client_id},
               {"aud", claims.audience},
               {"iat", now},
               {"exp", now + claims.lifetime.count()},
               {"jti", claims.jti.empty() ? HexRandom(16) : claims.jti}};
  const std::string signing_input = Base64UrlEncode(DumpJson(header)) + "." + Base64UrlEncode(DumpJson(body));

  std::unique_ptr<EVP_MD_CTX, MdCtxDeleter> ctx(C().EVP_MD_CTX_new());
  size_t sig_len = 0;
  if (!ctx || C().EVP_DigestSignInit(ctx.get(), nullptr, C().EVP_sha384(), nullptr, key->get()) != 1 ||
      C().EVP_DigestSign(ctx.get(), nullptr, &sig_len, reinterpret_cast<const unsigned char*>(signing_input.data()),
                     signing_input.size()) != 1) {
    return Status::Internal("OpenSSL: cannot start the JWT signature");
  }
  std::string sig(sig_len, '\0');
  if (C().EVP_DigestSign(ctx.get(), reinterpret_cast<unsigned char*>(sig.data()), &sig_len,
                     reinterpret_cast<const unsigned char*>(signing_input.data()), signing_input.size()) != 1) {
    return Status::Internal("OpenSSL: the JWT signature failed");
  }
  sig.resize(sig_len);
  if (*alg == Alg::kEs384) {
    Result<std::string> jose = DerToJose(sig);
    if (!jose.ok()) return jose.status();
    sig = std::move(*jose);
  }
  return signing_input + "." + Base64UrlEncode(sig);
}

Result<Json> VerifyJwt(std::string_view jwt, std::string_view public_key_pem) {
  const size_t dot1 = jwt.find('.');
  const size_t dot2 = dot1 == std::string_view::npos ? dot1 : jwt.find('.', dot1 + 1);
  if (dot2 == std::string_view::npos) return Status::ParseError("a JWT has three parts");
  Result<std::string> header_text = Base64UrlDecode(jwt.substr(0, dot1));
  Result<std::string> body_text = Base64UrlDecode(jwt.substr(dot1 + 1, dot2 - dot1 - 1));
  Result<std::string> sig = Base64UrlDecode(jwt.substr(dot2 + 1));
  if (!header_text.ok() || !body_text.ok() || !sig.ok()) return Status::ParseError("a JWT part is not base64url");
  Result<Json> header = ParseJson(*header_text);
  Result<Json> body = ParseJson(*body_text);
  if (!header.ok() || !body.ok() || !header->is_object() || !body->is_object()) {
    return Status::ParseError("a JWT part is not a JSON object");
  }
  if (!Crypto().ok()) return Crypto().status();
  Result<Pkey> key = ReadKey(public_key_pem, /*is_private=*/false);
  if (!key.ok()) return key.status();
  Result<Alg> alg = AlgorithmOf(key->get());
  if (!alg.ok()) return alg.status();
  const std::string want = *alg == Alg::kRs384 ? "RS384" : "ES384";
  if (StringOr(*header, "alg") != want) return Status::PermissionDenied("the JWT's alg is not " + want);
  std::string signature = std::move(*sig);
  if (*alg == Alg::kEs384) {
    Result<std::string> der = JoseToDer(signature);
    if (!der.ok()) return der.status();
    signature = std::move(*der);
  }
  const std::string_view signing_input = jwt.substr(0, dot2);
  std::unique_ptr<EVP_MD_CTX, MdCtxDeleter> ctx(C().EVP_MD_CTX_new());
  if (!ctx || C().EVP_DigestVerifyInit(ctx.get(), nullptr, C().EVP_sha384(), nullptr, key->get()) != 1 ||
      C().EVP_DigestVerify(ctx.get(), reinterpret_cast<const unsigned char*>(signature.data()), signature.size(),
                       reinterpret_cast<const unsigned char*>(signing_input.data()), signing_input.size()) != 1) {
    return Status::PermissionDenied("the JWT's signature does not verify");
  }
  return std::move(*body);
}

SmartTokenSource::SmartTokenSource(SmartClientOptions options) : options_(std::move(options)) {
  if (!options_.transport) options_.transport = MakeCurlTransport();
  if (!options_.now) options_.now = [] { return std::chrono::system_clock::now(); };
}

int SmartTokenSource::grants() const {
  std::lock_guard<std::mutex> lock(mu_);
  return grants_;
}

void SmartTokenSource::Invalidate() {
  std::lock_guard<std::mutex> lock(mu_);
  token_.clear();
}

Result<std::string> SmartTokenSource::Token(const CancellationToken& cancel) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!token_.empty() && options_.now() + options_.refresh_margin < expires_) return token_;
  return Grant(cancel);
}

Result<std::string> SmartTokenSource::Grant(const CancellationToken& cancel) {
  if (options_.token_url.empty()) return Status::InvalidArgument("SMART: no token URL");
  Result<std::string> pem = ReadUserFile(options_.private_key_path, "SMART private key", kMaxKeyFileBytes);
  if (!pem.ok()) return pem.status();
  Result<std::string> assertion =
      SignJwtAssertion(*pem, {.client_id = options_.client_id, .audience = options_.token_url, .now = options_.now(),
                              .kid = options_.kid});
  if (!assertion.ok()) return assertion.status();

  HttpRequest request;
  request.method = "POST";
  request.url = options_.token_url;
  request.headers = {{"Content-Type", "application/x-www-form-urlencoded"}, {"Accept", "application/json"}};
  request.body = "grant_type=client_credentials&scope=" + UrlEncode(options_.scope) +
                 "&client_assertion_type=" + UrlEncode("urn:ietf:params:oauth:client-assertion-type:jwt-bearer") +
                 "&client_assertion=" + UrlEncode(*assertion);
  request.total_timeout = options_.request_timeout;
  request.max_response_bytes = 1 << 20;
  Result<HttpResponse> response = options_.transport->Send(request, nullptr, cancel);
  const std::string where = RedactUrl(options_.token_url);
  if (!response.ok()) return response.status().WithContext("SMART token request to " + where);
  ++grants_;
  Result<Json> body = ParseJson(response->body);
  if (response->status != 200) {
    std::string why = body.ok() && body->is_object() ? StringOr(*body, "error") : "";
    if (body.ok() && body->is_object() && !StringOr(*body, "error_description").empty()) {
      why += ": " + Preview(StringOr(*body, "error_description"), 200);
    }
    return Status::PermissionDenied("SMART token request to " + where + " failed: HTTP " +
                                    std::to_string(response->status) + (why.empty() ? "" : " (" + why + ")"));
  }
  if (!body.ok() || !body->is_object() || StringOr(*body, "access_token").empty()) {
    return Status::ParseError("SMART token response from " + where + " has no access_token");
  }
  token_ = StringOr(*body, "access_token");
  const int64_t expires_in = IntegerOr(*body, "expires_in", 300);
  expires_ = options_.now() + std::chrono::seconds(expires_in > 0 ? expires_in : 0);
  return token_;
}

}  // namespace medreact
