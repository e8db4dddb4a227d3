import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.Base64;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Portal Launcher signed_request signer: Java 8 or later, standard library only.
 *
 * <pre>PORTAL_API_KEY=&lt;api key&gt; java SignRequest.java [--exact] &lt; payload.json</pre>
 *
 * prints the signed_request of the JSON payload read from stdin; --exact signs the text exactly as
 * given (no issuedAt or nonce added).
 */
public final class SignRequest {
  private static final SecureRandom RANDOM = new SecureRandom();

  private SignRequest() {}

  /** The signed_request of a JSON text, signed exactly as given. */
  public static String signJson(String payloadJson, String apiKey)
      throws GeneralSecurityException {
    Base64.Encoder base64 = Base64.getEncoder(); // standard alphabet, padded, one line
    String encoded = base64.encodeToString(payloadJson.getBytes(StandardCharsets.UTF_8));
    Mac mac = Mac.getInstance("HmacSHA256");
    mac.init(new SecretKeySpec(apiKey.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
    // The HMAC is over the Base64 text, not over the JSON.
    byte[] digest = mac.doFinal(encoded.getBytes(StandardCharsets.US_ASCII));
    return base64.encodeToString(digest) + "." + encoded;
  }

  /**
   * The signed_request of a JSON object text (built with your own JSON library, without issuedAt
   * or nonce), with a fresh issuedAt and a random nonce added as its first members.
   */
  public static String sign(String payloadJson, String apiKey) throws GeneralSecurityException {
    String json = payloadJson.trim();
    if (!json.startsWith("{")) {
      throw new IllegalArgumentException("the payload must be a JSON object");
    }
    byte[] nonce = new byte[16];
    RANDOM.nextBytes(nonce);
    String rest = json.substring(1).trim();
    return signJson("{\"issuedAt\":" + System.currentTimeMillis() / 1000
        + ",\"nonce\":\"" + Base64.getUrlEncoder().withoutPadding().encodeToString(nonce) + "\""
        + (rest.startsWith("}") ? "" : ",") + rest, apiKey);
  }

  /** Command-line entry: reads the payload from stdin, the key from PORTAL_API_KEY. */
  public static void main(String[] args) throws IOException, GeneralSecurityException {
    String key = System.getenv("PORTAL_API_KEY");
    if (key == null || key.isEmpty()) {
      System.err.println("usage: PORTAL_API_KEY=<key> java SignRequest [--exact] < payload.json");
      System.exit(2);
    }
    ByteArrayOutputStream in = new ByteArrayOutputStream();
    byte[] buffer = new byte[8192];
    for (int n; (n = System.in.read(buffer)) > 0; ) {
      in.write(buffer, 0, n);
    }
    String text = new String(in.toByteArray(), StandardCharsets.UTF_8);
    boolean exact = args.length > 0 && args[0].equals("--exact");
    System.out.println(exact ? signJson(text, key) : sign(text, key));
  }
}
