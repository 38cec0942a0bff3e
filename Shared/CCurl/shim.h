#ifndef RENDEZVOUS_CCURL_SHIM_H
#define RENDEZVOUS_CCURL_SHIM_H
#include <curl/curl.h>

/// curl_easy_setopt and curl_easy_getinfo are variadic, which Swift cannot call: one typed
/// wrapper per kind of argument.
static inline CURLcode ccurl_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode ccurl_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode ccurl_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}
typedef size_t (*ccurl_write_callback)(char *data, size_t size, size_t count, void *context);
static inline CURLcode ccurl_setopt_write(CURL *handle, ccurl_write_callback callback, void *context) {
    CURLcode code = curl_easy_setopt(handle, CURLOPT_WRITEFUNCTION, callback);
    return code != CURLE_OK ? code : curl_easy_setopt(handle, CURLOPT_WRITEDATA, context);
}
static inline CURLcode ccurl_setopt_header(CURL *handle, ccurl_write_callback callback, void *context) {
    CURLcode code = curl_easy_setopt(handle, CURLOPT_HEADERFUNCTION, callback);
    return code != CURLE_OK ? code : curl_easy_setopt(handle, CURLOPT_HEADERDATA, context);
}
static inline long ccurl_response_code(CURL *handle) {
    long code = 0;
    curl_easy_getinfo(handle, CURLINFO_RESPONSE_CODE, &code);
    return code;
}
#endif
