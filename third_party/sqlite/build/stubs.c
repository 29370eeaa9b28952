// Stubs for exports whose feature sqlite_opt.h omits. The driver's Go code
// names every export, so each must exist; a stub fails the way SQLite does
// when asked for something it was built without.

#ifndef SQLITE_ENABLE_PREUPDATE_HOOK
void* sqlite3_preupdate_hook(sqlite3* db,
                             void (*xPreUpdate)(void*, sqlite3*, int,
                                                char const*, char const*,
                                                sqlite3_int64, sqlite3_int64),
                             void* pArg) {
  return NULL;
}
int sqlite3_preupdate_old(sqlite3* db, int i, sqlite3_value** pp) {
  return SQLITE_MISUSE;
}
int sqlite3_preupdate_new(sqlite3* db, int i, sqlite3_value** pp) {
  return SQLITE_MISUSE;
}
int sqlite3_preupdate_count(sqlite3* db) { return 0; }
int sqlite3_preupdate_depth(sqlite3* db) { return 0; }
int sqlite3_preupdate_blobwrite(sqlite3* db) { return -1; }
#endif

#ifdef SQLITE_OMIT_INCRBLOB
int sqlite3_blob_open(sqlite3* db, const char* zDb, const char* zTable,
                      const char* zColumn, sqlite3_int64 iRow, int flags,
                      sqlite3_blob** ppBlob) {
  *ppBlob = NULL;
  sqlite3ErrorWithMsg(db, SQLITE_ERROR, "incremental blob I/O is not built in");
  return SQLITE_ERROR;
}
int sqlite3_blob_reopen(sqlite3_blob* p, sqlite3_int64 iRow) {
  return SQLITE_MISUSE;
}
int sqlite3_blob_close(sqlite3_blob* p) { return SQLITE_OK; }
int sqlite3_blob_bytes(sqlite3_blob* p) { return 0; }
int sqlite3_blob_read(sqlite3_blob* p, void* z, int n, int iOffset) {
  return SQLITE_MISUSE;
}
int sqlite3_blob_write(sqlite3_blob* p, const void* z, int n, int iOffset) {
  return SQLITE_MISUSE;
}
#endif

#ifndef SQLITE_ENABLE_COLUMN_METADATA
const char* sqlite3_column_database_name(sqlite3_stmt* p, int i) {
  return NULL;
}
const char* sqlite3_column_table_name(sqlite3_stmt* p, int i) { return NULL; }
const char* sqlite3_column_origin_name(sqlite3_stmt* p, int i) { return NULL; }
#endif

#ifdef SQLITE_OMIT_DECLTYPE
const char* sqlite3_column_decltype(sqlite3_stmt* p, int i) { return NULL; }
#endif

#ifdef SQLITE_OMIT_VIRTUALTABLE
int sqlite3_create_module_v2(sqlite3* db, const char* zName,
                             const sqlite3_module* p, void* pClientData,
                             void (*xDestroy)(void*)) {
  if (xDestroy) xDestroy(pClientData);
  sqlite3ErrorWithMsg(db, SQLITE_ERROR, "virtual tables are not built in");
  return SQLITE_ERROR;
}
int sqlite3_create_module(sqlite3* db, const char* zName,
                          const sqlite3_module* p, void* pClientData) {
  return sqlite3_create_module_v2(db, zName, p, pClientData, NULL);
}
int sqlite3_declare_vtab(sqlite3* db, const char* zSQL) {
  return SQLITE_MISUSE;
}
int sqlite3_vtab_config(sqlite3* db, int op, ...) { return SQLITE_MISUSE; }
int sqlite3_vtab_on_conflict(sqlite3* db) { return SQLITE_ABORT; }
const char* sqlite3_vtab_collation(sqlite3_index_info* p, int i) {
  return NULL;
}
int sqlite3_vtab_distinct(sqlite3_index_info* p) { return 0; }
int sqlite3_vtab_in(sqlite3_index_info* p, int iCons, int bHandle) {
  return 0;
}
int sqlite3_vtab_rhs_value(sqlite3_index_info* p, int i,
                           sqlite3_value** ppVal) {
  *ppVal = NULL;
  return SQLITE_MISUSE;
}
#endif

// Hooks the Go driver can set. Clearing one always succeeds; setting one
// fails, as the feature is not there to call it.

#ifdef SQLITE_OMIT_PROGRESS_CALLBACK
void sqlite3_progress_handler(sqlite3* db, int nOps, int (*xProgress)(void*),
                              void* pArg) {}
#endif

#ifdef SQLITE_OMIT_AUTHORIZATION
int sqlite3_set_authorizer(sqlite3* db,
                           int (*xAuth)(void*, int, const char*, const char*,
                                        const char*, const char*),
                           void* pArg) {
  return xAuth ? SQLITE_ERROR : SQLITE_OK;
}
#endif

#ifdef SQLITE_OMIT_TRACE
int sqlite3_trace_v2(sqlite3* db, unsigned mMask,
                     int (*xTrace)(unsigned, void*, void*, void*),
                     void* pArg) {
  return mMask && xTrace ? SQLITE_ERROR : SQLITE_OK;
}
#endif

// Statements the amalgamation's parser still recognizes, though the code
// that would carry them out is omitted: each fails to prepare with an
// error naming what is missing, and frees what the parser handed it.

static void twiceNotBuiltIn(Parse* pParse, const char* zWhat) {
  sqlite3ErrorMsg(pParse, "%s is not available in this build of SQLite",
                  zWhat);
}

#ifdef SQLITE_OMIT_ALTERTABLE
void sqlite3AlterRenameTable(Parse* pParse, SrcList* pSrc, Token* pName) {
  sqlite3SrcListDelete(pParse->db, pSrc);
  twiceNotBuiltIn(pParse, "ALTER TABLE");
}
void sqlite3AlterRenameColumn(Parse* pParse, SrcList* pSrc, Token* pOld,
                              Token* pNew) {
  sqlite3SrcListDelete(pParse->db, pSrc);
  twiceNotBuiltIn(pParse, "ALTER TABLE");
}
void sqlite3AlterDropConstraint(Parse* pParse, SrcList* pSrc, Token* pName,
                                Token* pCol) {
  sqlite3SrcListDelete(pParse->db, pSrc);
  twiceNotBuiltIn(pParse, "ALTER TABLE");
}
void sqlite3AlterAddConstraint(Parse* pParse, SrcList* pSrc, Token* pFirst,
                               Token* pName, const char* zExpr, int nExpr,
                               Expr* pExpr) {
  sqlite3SrcListDelete(pParse->db, pSrc);
  sqlite3ExprDelete(pParse->db, pExpr);
  twiceNotBuiltIn(pParse, "ALTER TABLE");
}
void sqlite3AlterSetNotNull(Parse* pParse, SrcList* pSrc, Token* pCol,
                            Token* pFirst) {
  sqlite3SrcListDelete(pParse->db, pSrc);
  twiceNotBuiltIn(pParse, "ALTER TABLE");
}
void sqlite3AlterBeginAddColumn(Parse* pParse, SrcList* pSrc) {
  sqlite3SrcListDelete(pParse->db, pSrc);
  twiceNotBuiltIn(pParse, "ALTER TABLE");
}
void sqlite3AlterDropColumn(Parse* pParse, SrcList* pSrc, const Token* pName) {
  sqlite3SrcListDelete(pParse->db, pSrc);
  twiceNotBuiltIn(pParse, "ALTER TABLE");
}
void sqlite3AlterFinishAddColumn(Parse* pParse, Token* pColDef) {}
#endif

#ifdef SQLITE_OMIT_ANALYZE
void sqlite3Analyze(Parse* pParse, Token* pName1, Token* pName2) {
  twiceNotBuiltIn(pParse, "ANALYZE");
}
#endif

#ifdef SQLITE_OMIT_REINDEX
void sqlite3Reindex(Parse* pParse, Token* pName1, Token* pName2) {
  twiceNotBuiltIn(pParse, "REINDEX");
}
#endif

#ifdef SQLITE_OMIT_PRAGMA
void sqlite3Pragma(Parse* pParse, Token* pId1, Token* pId2, Token* pValue,
                   int minusFlag) {
  twiceNotBuiltIn(pParse, "PRAGMA");
}
#endif

#ifdef SQLITE_OMIT_VIEW
void sqlite3CreateView(Parse* pParse, Token* pBegin, Token* pName1,
                       Token* pName2, ExprList* pCNames, Select* pSelect,
                       int isTemp, int noErr) {
  sqlite3ExprListDelete(pParse->db, pCNames);
  sqlite3SelectDelete(pParse->db, pSelect);
  twiceNotBuiltIn(pParse, "CREATE VIEW");
}
#endif

#ifdef SQLITE_OMIT_VIRTUALTABLE
void sqlite3VtabBeginParse(Parse* pParse, Token* pName1, Token* pName2,
                           Token* pModuleName, int ifNotExists) {
  twiceNotBuiltIn(pParse, "CREATE VIRTUAL TABLE");
}
void sqlite3VtabArgInit(Parse* pParse) {}
void sqlite3VtabArgExtend(Parse* pParse, Token* p) {}
void sqlite3VtabFinishParse(Parse* pParse, Token* pEnd) {}
#endif

#ifdef SQLITE_OMIT_ATTACH
void sqlite3Attach(Parse* pParse, Expr* p, Expr* pDbname, Expr* pKey) {
  sqlite3ExprDelete(pParse->db, p);
  sqlite3ExprDelete(pParse->db, pDbname);
  sqlite3ExprDelete(pParse->db, pKey);
  twiceNotBuiltIn(pParse, "ATTACH");
}
void sqlite3Detach(Parse* pParse, Expr* pDbname) {
  sqlite3ExprDelete(pParse->db, pDbname);
  twiceNotBuiltIn(pParse, "DETACH");
}
#endif

#if defined(SQLITE_OMIT_VACUUM) || defined(SQLITE_OMIT_ATTACH)
void sqlite3Vacuum(Parse* pParse, Token* pNm, Expr* pInto) {
  sqlite3ExprDelete(pParse->db, pInto);
  twiceNotBuiltIn(pParse, "VACUUM");
}
#endif

// Functions SQLite defines only with ATTACH or VACUUM but calls without
// them too: the same few lines.

#ifdef SQLITE_OMIT_ATTACH
int sqlite3DbIsNamed(sqlite3* db, int iDb, const char* zName) {
  return sqlite3StrICmp(db->aDb[iDb].zDbSName, zName) == 0 ||
         (iDb == 0 && sqlite3StrICmp("main", zName) == 0);
}
#endif

#ifdef SQLITE_OMIT_VACUUM
void sqlite3PagerClearCache(Pager* pPager) {
  if (pPager->tempFile == 0) pager_reset(pPager);
}
#endif
