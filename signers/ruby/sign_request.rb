# Portal Launcher signed_request signer: Ruby 2.4 or later, standard library only.
#
#   PORTAL_API_KEY=<api key> ruby sign_request.rb [--exact] < payload.json
#
# prints the signed_request of the JSON payload read from stdin; --exact signs the text exactly as
# given (no issuedAt or nonce added).
require "json"
require "openssl"
require "securerandom"

module PortalSigner
  # The signed_request of a JSON text, signed exactly as given.
  def self.sign_json(payload_json, api_key)
    # pack("m0") is strict Base64 (Base64.strict_encode64): padded, no line breaks.
    encoded = [payload_json.encode("UTF-8")].pack("m0")
    # The HMAC is over the Base64 text, not over the JSON.
    digest = OpenSSL::HMAC.digest("SHA256", api_key.encode("UTF-8"), encoded)
    "#{[digest].pack("m0")}.#{encoded}"
  end

  # The signed_request of a payload Hash, with a fresh issuedAt and a random nonce added.
  def self.sign(payload, api_key)
    fresh = payload.merge("issuedAt" => Time.now.to_i, "nonce" => SecureRandom.hex(16))
    sign_json(JSON.generate(fresh), api_key)
  end
end

if $PROGRAM_NAME == __FILE__
  key = ENV["PORTAL_API_KEY"].to_s
  if key.empty?
    warn "usage: PORTAL_API_KEY=<key> ruby sign_request.rb [--exact] < payload.json"
    exit 2
  end
  text = $stdin.binmode.read.force_encoding("UTF-8")
  exact = ARGV.include?("--exact")
  puts exact ? PortalSigner.sign_json(text, key) : PortalSigner.sign(JSON.parse(text), key)
end
