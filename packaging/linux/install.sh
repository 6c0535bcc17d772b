#!/bin/sh
# Register Panelvox for this user: the menu entry, the icon, and comic files opening in it
# on a double-click. Needs no administrator rights; run it from the unpacked folder:
#   ./install.sh            install
#   ./install.sh --remove   undo
# Every step says what it did, so it can be followed with a screen reader.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
data=${XDG_DATA_HOME:-$HOME/.local/share}
bin=$HOME/.local/bin
app=io.github.panelvox.Panelvox

if [ "${1:-}" = "--remove" ]; then
  rm -f "$bin/panelvox" "$data/applications/$app.desktop" "$data/metainfo/$app.metainfo.xml" \
    "$data/mime/packages/panelvox-comics.xml" "$data/icons/hicolor/scalable/apps/$app.svg" \
    "$data/icons/hicolor/256x256/apps/$app.png"
  update-mime-database "$data/mime" >/dev/null 2>&1 || true
  echo "Panelvox is removed from the menu. Delete this folder to remove the program."
  exit 0
fi

mkdir -p "$bin" "$data/applications" "$data/metainfo" "$data/mime/packages" \
  "$data/icons/hicolor/scalable/apps" "$data/icons/hicolor/256x256/apps"
ln -sf "$here/panelvox" "$bin/panelvox"
# the menu entry runs the program by its full path, so it works without ~/.local/bin on PATH
sed -e "s|^Exec=panelvox|Exec=\"$here/panelvox\"|" -e "s|^TryExec=panelvox|TryExec=$here/panelvox|" \
  "$here/share/applications/$app.desktop" > "$data/applications/$app.desktop"
cp "$here/share/metainfo/$app.metainfo.xml" "$data/metainfo/"
cp "$here/share/mime/packages/panelvox-comics.xml" "$data/mime/packages/"
cp "$here/share/icons/hicolor/scalable/apps/$app.svg" "$data/icons/hicolor/scalable/apps/"
cp "$here/share/icons/hicolor/256x256/apps/$app.png" "$data/icons/hicolor/256x256/apps/" 2>/dev/null || true
update-mime-database "$data/mime" >/dev/null 2>&1 || true
update-desktop-database "$data/applications" >/dev/null 2>&1 || true
xdg-mime default "$app.desktop" application/vnd.comicbook+zip application/vnd.comicbook-rar \
  application/x-cb7 application/x-cbt >/dev/null 2>&1 || true
echo "Panelvox is in the menu, and comic books open in it on a double-click."
