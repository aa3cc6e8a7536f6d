// SMART Backend Services authorization (HL7 SMART App Launch 2.x, "Backend
// Services", https://hl7.org/fhir/smart-app-launch/backend-services.html):
// the client proves its identity with a JWT it signs with its private key
// (RS384 or ES384), posts it to the token endpoint in a client_credentials
// grant, and uses the access token it gets until shortly before it expires.
//
//   SignJwtAssertion: the assertion (header.claims.signature, base64url),
//     iss = sub = client id, aud = token URL, exp = now + at most 5 minutes,
//     a unique jti. Signed with OpenSSL's libcrypto; an ES384 signature is
//     converted from DER to the JOSE form (r || s, 48 bytes each, RFC 7518
//     section 3.4).
//   SmartTokenSource: the grant and its cache (thread-safe): Token() returns
//     the cached token while it has more than `refresh_margin` left, else
//     asks for a new one; Invalidate() drops it (after a 401).
//
// The key file is read with ReadUserFile; its content, the assertion and the
// token are never logged or put in a message.
#ifndef MEDREACT_TOOLS_FHIR_SMART_AUTH_H_
#define MEDREACT_TOOLS_FHIR_SMART_AUTH_H_

#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "medreact/cancel.h"
#include "medreact/http.h"
#include "medreact/json.h"
#include "medreact/status.h"

namespace medreact {

// RFC 4648 section 5, no padding.
std::string Base64UrlEncode(std::string_view bytes);
// Accepts padding or none; an invalid character is an error.
Result<std::string> Base64UrlDecode(std::string_view text);

struct JwtAssertionClaims {
  std::string client_id;  // iss and sub
  std::string audience;   // aud: the token endpoint's URL
  std::chrono::system_clock::time_point now;
  std::chrono::seconds lifetime{300};  // exp - now; SMART allows at most 5 min. Default: 300 s
  std::string jti;                     // Default: "" = 128 random bits, hex
  std::string kid;                     // the key's id in the JWKS, sent in the header. Default: none
};

// Signs the claims with the PEM private key `key_pem` (RSA → RS384, EC P-384
// → ES384; any other key is InvalidArgument naming its type).
Result<std::string> SignJwtAssertion(std::string_view key_pem, const JwtAssertionClaims& claims);

// Checks `jwt`'s signature with the PEM public key and returns its claims
// (used by tests and the fixture server's token endpoint; the algorithm in
// the header must match the key).
Result<Json> VerifyJwt(std::string_view jwt, std::string_view public_key_pem);

struct SmartClientOptions {
  std::string client_id;
  std::string private_key_path;  // PEM (PKCS#8 or traditional)
  std::string token_url;         // the token endpoint
  std::string kid;               // Default: none
  std::string scope = "system/*.read";  // Default: "system/*.read"
  // A token is used until this long before its expires_in. Default: 60 s
  std::chrono::seconds refresh_margin{60};
  Millis request_timeout{30'000};  // Default: 30 s
  std::shared_ptr<HttpTransport> transport;  // Default: libcurl
  // The clock; tests move it. Default: system_clock::now
  std::function<std::chrono::system_clock::time_point()> now;
};

class SmartTokenSource {
 public:
  explicit SmartTokenSource(SmartClientOptions options);

  // A valid access token: the cached one, or a new grant.
  Result<std::string> Token(const CancellationToken& cancel = {});
  // Forgets the cached token (the server answered 401 with it).
  void Invalidate();
  // Grants made so far (tests).
  int grants() const;

 private:
  Result<std::string> Grant(const CancellationToken& cancel);

  SmartClientOptions options_;
  mutable std::mutex mu_;
  std::string token_;
  std::chrono::system_clock::time_point expires_{};
  int grants_ = 0;
};

}  // namespace medreact

#endif  // MEDREACT_TOOLS_FHIR_SMART_AUTH_H_
