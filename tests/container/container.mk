# tests/container/container.mk - the container lane: a real dockerd started
# and stopped by the test, the image built from a clean clone (on a Debian 12
# base that debootstrap makes once and the cache keeps), then run as
# docs/guide/install.md says (tests/container/test_container.sh). Needs root;
# the cache ($NUMALAB_TEST_CACHE, default /var/cache/numalab-test) keeps the
# base root and dockerd's data root between runs on one machine.
TEST_LANES += test-container

test-container:
	$(Q)echo "  DOCKER  tests/container/test_container.sh"; \
	sh tests/container/test_container.sh

.PHONY: test-container
