// Portal Launcher signed_request signer: C# for .NET Framework 4.6+, .NET Core, .NET 5+ or Mono;
// base class library only.
//
//   mcs SignRequest.cs && PORTAL_API_KEY=<api key> mono SignRequest.exe [--exact] < payload.json
//
// prints the signed_request of the JSON payload read from stdin; --exact signs the text exactly as
// given (no issuedAt or nonce added).
using System;
using System.IO;
using System.Security.Cryptography;
using System.Text;

public static class SignRequest
{
    /// <summary>The signed_request of a JSON text, signed exactly as given.</summary>
    public static string SignJson(string payloadJson, string apiKey)
    {
        string encoded = Convert.ToBase64String(Encoding.UTF8.GetBytes(payloadJson));
        using (var hmac = new HMACSHA256(Encoding.UTF8.GetBytes(apiKey)))
        {
            // The HMAC is over the Base64 text, not over the JSON.
            byte[] digest = hmac.ComputeHash(Encoding.ASCII.GetBytes(encoded));
            return Convert.ToBase64String(digest) + "." + encoded;
        }
    }

    /// <summary>
    /// The signed_request of a JSON object text (built with your own JSON library, without
    /// issuedAt or nonce), with a fresh issuedAt and a random nonce added as its first members.
    /// </summary>
    public static string Sign(string payloadJson, string apiKey)
    {
        string json = payloadJson.Trim();
        if (json.Length == 0 || json[0] != '{')
        {
            throw new ArgumentException("the payload must be a JSON object");
        }
        var nonce = new byte[16];
        using (var random = RandomNumberGenerator.Create())
        {
            random.GetBytes(nonce);
        }
        string rest = json.Substring(1).TrimStart();
        return SignJson("{\"issuedAt\":" + DateTimeOffset.UtcNow.ToUnixTimeSeconds()
            + ",\"nonce\":\"" + BitConverter.ToString(nonce).Replace("-", "") + "\""
            + (rest.Length > 0 && rest[0] == '}' ? "" : ",") + rest, apiKey);
    }

    /// <summary>Command line: the payload from stdin, the key from PORTAL_API_KEY.</summary>
    public static int Main(string[] args)
    {
        string key = Environment.GetEnvironmentVariable("PORTAL_API_KEY");
        if (string.IsNullOrEmpty(key))
        {
            Console.Error.WriteLine("usage: PORTAL_API_KEY=<key> SignRequest [--exact] < payload");
            return 2;
        }
        var input = new MemoryStream();
        Console.OpenStandardInput().CopyTo(input);
        string text = Encoding.UTF8.GetString(input.ToArray());
        bool exact = args.Length > 0 && args[0] == "--exact";
        Console.WriteLine(exact ? SignJson(text, key) : Sign(text, key));
        return 0;
    }
}
