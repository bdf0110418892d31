from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path

from combat import accounts

# Django's own auth views, named as django.contrib.auth.urls names them; log-in and the
# password reset pages are combat.accounts' (reset only where mail is configured).
account_urls = [
    path("login/", accounts.LogIn.as_view(), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("password_change/", auth_views.PasswordChangeView.as_view(), name="password_change"),
    path(
        "password_change/done/",
        auth_views.PasswordChangeDoneView.as_view(),
        name="password_change_done",
    ),
    path("password_reset/", accounts.password_reset, name="password_reset"),
    path("password_reset/done/", accounts.password_reset_done, name="password_reset_done"),
    path(
        "reset/<uidb64>/<token>/",
        accounts.password_reset_confirm,
        name="password_reset_confirm",
    ),
    path("reset/done/", accounts.password_reset_complete, name="password_reset_complete"),
]

urlpatterns = [
    path("admin/", admin.site.urls),
    path("accounts/", include(account_urls)),
    # Last, so the app's catch-all routes cannot shadow admin or accounts.
    path("", include("combat.urls")),
]

# Every refusal in words, as JSON under /api/ (combat.views.refuse).
handler400 = "combat.views.bad_request"
handler403 = "combat.views.permission_denied"
handler404 = "combat.views.page_not_found"
handler500 = "combat.views.server_error"
