# perfgate's image: perfgate, and the compilers it runs on the code it
# measures (gcc, and nvcc from the CUDA base image).
#
#   docker build -t perfgate .
#   docker run --rm -v "$PWD:/repo" -w /repo perfgate compare HEAD~1
#
# As a CI job's image (GitLab's `image:`, a Jenkins or Buildkite docker
# agent), override the entrypoint: the job runs its own shell.
ARG BASE=nvidia/cuda:13.0.0-devel-ubuntu24.04

FROM ${BASE} AS build
COPY . /src
# Installs the packages, builds, runs the unit tests, installs into
# /opt/perfgate and runs its quickstart: the test suite runs the same
# script, and builds this whole file with podman (tests/image_podman.sh).
RUN /src/scripts/docker-build.sh /opt/perfgate /tmp/build

FROM ${BASE}
COPY scripts/deps.sh scripts/packages.txt /opt/perfgate/share/perfgate/scripts/
# shellcheck disable=SC2046
RUN /opt/perfgate/share/perfgate/scripts/deps.sh \
        $(cat /opt/perfgate/share/perfgate/scripts/packages.txt) \
    && rm -rf /var/lib/apt/lists/* \
    && git config --system --add safe.directory '*'
COPY --from=build /opt/perfgate /opt/perfgate
ENV PATH=/opt/perfgate/bin:$PATH
# The image as it ships runs the quickstart: a pass, then a regression
# caught (the build fails if either goes otherwise).
RUN /opt/perfgate/share/perfgate/scripts/demo.sh perfgate
ENTRYPOINT ["perfgate"]
CMD ["--help"]
