// The C library's string functions that SQLite calls and libc-gen leaves to
// its host (the translation gets them from wasm2go's Go): the browser's
// module has no host, so it carries them, plainly.

#include <stddef.h>
#include <string.h>

size_t strlen(const char* s) {
  const char* p = s;
  while (*p) p++;
  return p - s;
}

int memcmp(const void* a, const void* b, size_t n) {
  const unsigned char *x = a, *y = b;
  for (; n; n--, x++, y++) {
    if (*x != *y) return *x - *y;
  }
  return 0;
}

int strcmp(const char* a, const char* b) {
  for (; *a && *a == *b; a++, b++) {
  }
  return *(const unsigned char*)a - *(const unsigned char*)b;
}

int strncmp(const char* a, const char* b, size_t n) {
  for (; n && *a && *a == *b; n--, a++, b++) {
  }
  return n ? *(const unsigned char*)a - *(const unsigned char*)b : 0;
}

char* strchrnul(const char* s, int c) {
  for (; *s && *(const unsigned char*)s != (unsigned char)c; s++) {
  }
  return (char*)s;
}

char* strchr(const char* s, int c) {
  s = strchrnul(s, c);
  return *(const unsigned char*)s == (unsigned char)c ? (char*)s : NULL;
}

size_t strspn(const char* s, const char* accept) {
  size_t n = 0;
  for (; s[n] && strchr(accept, s[n]); n++) {
  }
  return n;
}

size_t strcspn(const char* s, const char* reject) {
  size_t n = 0;
  for (; s[n] && !strchr(reject, s[n]); n++) {
  }
  return n;
}
