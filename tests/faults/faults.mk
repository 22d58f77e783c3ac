# tests/faults/faults.mk - failure injection: the n-th allocation, SQLite
# call or SQLite allocation of a scenario fails, one n per child, under
# AddressSanitizer and UndefinedBehaviorSanitizer with leak checking. Each
# failure must be reported, or absorbed with the results a run without it
# gives; no crash, no sanitizer report, no leak. Every SQL call is tried;
# of the allocations, up to FAULTS_MOST n's spread over a scenario's calls
# (fault_run.c says how many; FAULTS_MOST=0 tries every n, for an hour).
#   make test-faults                       every scenario, every kind
#   make test-faults FAULTS_ARGS="import sql"     one scenario, one kind
#   make test-faults FAULTS_ARGS="import sql 17"  one child, its log on stderr
#                    (FAULTS_SHOW=1 prints what it read back)
FAULTS_BIN = $(BUILD)/tests/faults/fault_run
# our objects' calls; jansson's and SQLite's allocations go through the
# allocators fault_run.c gives them
FAULTS_WRAP = -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=strdup \
	-Wl,--wrap=strndup,--wrap=vasprintf \
	-Wl,--wrap=sqlite3_prepare_v2,--wrap=sqlite3_step,--wrap=sqlite3_exec \
	-Wl,--wrap=json_dumps,--wrap=json_loadb,--wrap=json_loads \
	-Wl,--wrap=json_copy,--wrap=json_deep_copy
FAULTS_TMP = $(BUILD)/tests/faults/tmp
FAULTS_INPUTS = tests/fuzz/corpus/import/run-core_to_core.json \
	tests/fuzz/corpus/import/campaign-clush.json
FAULTS_ENV = ASAN_OPTIONS=detect_leaks=1:exitcode=23 \
	UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
	LSAN_OPTIONS=exitcode=23 \
	$(foreach v,FAULTS_MOST FAULTS_JOBS FAULTS_STRICT FAULTS_SHOW,$(if $($(v)),$(v)=$($(v))))

$(FAULTS_BIN): tests/faults/fault_run.c $(LIB_OBJS)
	@mkdir -p $(dir $@)
	@echo "  CCLD    $@"
	$(Q)$(CC) $(CFLAGS) $(PKG_CFLAGS) $(LDFLAGS) $(FAULTS_WRAP) -o $@ $< $(LIB_OBJS) $(PKG_LIBS) $(LDLIBS)

faults-run: $(FAULTS_BIN)
	$(Q)rm -rf $(FAULTS_TMP) && mkdir -p $(FAULTS_TMP)
	$(Q)echo "  FAULTS  $(FAULTS_BIN)"
	$(Q)$(FAULTS_ENV) $(FAULTS_BIN) $(FAULTS_TMP) $(FAULTS_INPUTS) $(FAULTS_ARGS)

# the sanitizers' build, which test-unit-san shares
test-faults:
	$(Q)$(MAKE) --no-print-directory SAN=address,undefined faults-run

TEST_LANES += test-faults
.PHONY: test-faults faults-run
