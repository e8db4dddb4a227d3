<?php
/**
 * Portal Launcher signed_request signer: PHP 7.3 or later, core functions only.
 *
 *     PORTAL_API_KEY=<api key> php sign_request.php [--exact] < payload.json
 *
 * prints the signed_request of the JSON payload read from stdin; --exact signs the text exactly as
 * given (no issuedAt or nonce added).
 */

/** The signed_request of a JSON text (UTF-8 bytes), signed exactly as given. */
function portal_sign_json(string $payloadJson, string $apiKey): string
{
    $encoded = base64_encode($payloadJson);
    // The HMAC is over the Base64 text, not over the JSON; `true` asks for the raw 32 bytes.
    return base64_encode(hash_hmac('sha256', $encoded, $apiKey, true)) . '.' . $encoded;
}

/** The signed_request of a payload (array or object), with a fresh issuedAt and a random nonce. */
function portal_sign($payload, string $apiKey): string
{
    $fresh = array_merge((array) $payload, [
        'issuedAt' => time(),
        'nonce' => bin2hex(random_bytes(16)),
    ]);
    $flags = JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE | JSON_THROW_ON_ERROR;
    return portal_sign_json(json_encode($fresh, $flags), $apiKey);
}

if (PHP_SAPI === 'cli' && isset($argv[0]) && realpath($argv[0]) === __FILE__) {
    $key = getenv('PORTAL_API_KEY');
    if ($key === false || $key === '') {
        fwrite(STDERR, "usage: PORTAL_API_KEY=<key> php sign_request.php [--exact] < payload\n");
        exit(2);
    }
    $text = file_get_contents('php://stdin');
    // Decoded as objects, not arrays: an empty object {} stays {} (an array would become []).
    echo in_array('--exact', $argv, true)
        ? portal_sign_json($text, $key)
        : portal_sign(json_decode($text, false, 512, JSON_THROW_ON_ERROR), $key), "\n";
}
