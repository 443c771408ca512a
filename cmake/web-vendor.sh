#!/bin/sh
# Copy uPlot's dist files into web/vendor/: the version is pinned in
# web/package.json and web/package-lock.json (npm ci installs exactly that).
# uPlot is MIT licensed; its licence file goes along.
set -eu
web=$1
cd "$web"
npm ci --no-audit --no-fund --loglevel=error
mkdir -p vendor
cp node_modules/uplot/dist/uPlot.iife.min.js node_modules/uplot/dist/uPlot.min.css vendor/
cp node_modules/uplot/LICENSE vendor/uPlot.LICENSE
